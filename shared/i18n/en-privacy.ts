/** English, The privacy policy: loaded with its page. */
export const enPrivacy = {
  'privacy.title': 'Privacy Policy',
  'privacy.updated': 'Last updated: November 2026',
  'privacy.toc': 'Contents',
  'privacy.intro':
    'This policy explains what Eventmatch collects when you use the app, why, and what you can do about it.',
  'privacy.collection.title': 'Information we collect',
  'privacy.collection.text':
    'Your account details (name and e\u2011mail), the profile you write (photos, bio, date of birth, gender and who you want to meet), your reactions to other profiles, and the messages you send to your matches. Photos are stripped of location and camera data before they are stored.',
  'privacy.sharing.title': 'How we share data',
  'privacy.sharing.text':
    'Other users see your public profile: name, age, photos and bio, never your e\u2011mail or date of birth. Messages are only visible to you and your match. We use payment and sign-in providers only for payments and sign-in, and we do not sell your data.',
  'privacy.security.title': 'Security',
  'privacy.security.text':
    'Passwords are stored as strong hashes, sessions use revocable tokens, and all traffic is encrypted in transit. On your phone, the app keeps your latest chats so that they open without a network; logging out removes them.',
  'privacy.rights.title': 'Your rights',
  'privacy.rights.text':
    'You can view and edit your profile at any time. In Settings you can also download a copy of your data or delete your account, without having to ask us.',
  'privacy.changes.title': 'Changes to this policy',
  'privacy.changes.text': 'If this policy changes we will update the date above and tell you in the app.',
  'privacy.contact.title': 'Contact',
  'privacy.contact.text': 'Questions about your privacy? Write to us at {email}.',
  'privacy.backHome': 'Back to home',
} as const;
