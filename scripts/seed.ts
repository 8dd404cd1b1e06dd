/**
 * Fills the database with a living crowd: users with completed profiles and photos, reactions,
 * matches and conversations with messages. Everything is generated locally (no network) and written
 * in bulk SQL (generate_series), so that 100,000 users take seconds, not hours.
 *
 *   npm run seed -- --users 2000                  # PGlite under DATA_DIR (default ./data)
 *   DATABASE_URL=postgres://… npm run seed -- --users 100000 --reactions-per-user 30
 *   npm run seed -- --users 5000 --event-attendees 2000   # how many are at the demo event (default 80 %)
 *
 * Each run adds a new batch. Every seeded account logs in with the password printed at the end;
 * `demo@example.com` is a ready-made account with likes waiting and a few chats going.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { faker } from '@faker-js/faker';
import argon2 from 'argon2';
import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import { type Db, rowsOf } from '../server/db/client';
import { createEvent } from '../server/features/events/service';
import { localMediaStore } from '../server/features/media/store';
import { report } from '../server/features/safety/service';
import type { ReportInput } from '../shared/schemas/safety';
import { openCommandDatabase } from './command-database';

export const DEMO_EMAIL = 'demo@example.com';
export const DEMO_EVENT_NAME = 'Eventmatch launch party';
export const SEED_PASSWORD = 'party-time-2026';

export interface SeedOptions {
  users: number;
  /** Reactions each seeded user gives, on average (random targets; duplicates collapse). */
  reactionsPerUser: number;
  /** Share of users paired off with a mutual like (a match), before chance matches. */
  matchRate: number;
  /** Where photos are written (`<dataDir>/media`, as the server serves them). */
  dataDir: string;
  photos: number;
  /**
   * How many of this batch's completed profiles are checked in to the demo event (open now, organized
   * by the demo user, who is checked in too). Default: most of them (80 %).
   */
  eventAttendees?: number;
  log?: (line: string) => void;
}

export interface SeedResult {
  users: number;
  firstId: number;
  lastId: number;
  reactions: number;
  conversations: number;
  messages: number;
  demoUserId: number;
  demoEvent: { id: number; code: string; attendees: number };
}

const CHAT_LINES = [
  'Hey! Are you still at the party?',
  'Loved your playlist pick earlier 😄',
  'Which bar are you at?',
  'I am by the stage, come say hi',
  'Haha that DJ is something else',
  'Want to grab a drink?',
  'Are you here with friends?',
  'First time at this event?',
  'Your photos are great, where was the beach one?',
  'I think I saw you near the entrance!',
  'Shall we meet at the food trucks?',
  'That was fun, same time next week?',
  'Do you dance or just watch? 😅',
  'I am the one in the green jacket',
  'Running late, 10 minutes!',
  'Good morning! Survived last night?',
  'Coffee tomorrow?',
  'You have great taste in music',
  'Ok I am outside',
  'See you soon!',
];

/** The same night in Spanish, the app's first language: a chat is in one language or the other. */
export const CHAT_LINES_ES = [
  '¡Hola! ¿Sigues en la fiesta?',
  'Me encantó la canción que pediste 😄',
  '¿En qué barra estás?',
  'Estoy al lado del escenario, ven a saludar',
  'Jaja ese DJ es otra cosa',
  '¿Te apetece tomar algo?',
  '¿Has venido con amigos?',
  '¿Es tu primera vez en este evento?',
  'Tus fotos son geniales, ¿dónde es la de la playa?',
  '¡Creo que te vi cerca de la entrada!',
  '¿Nos vemos en los food trucks?',
  'Qué bien lo pasamos, ¿repetimos la semana que viene?',
  '¿Bailas o solo miras? 😅',
  'Soy el de la chaqueta verde',
  '¡Llego tarde, 10 minutos!',
  '¡Buenos días! ¿Sobreviviste a anoche?',
  '¿Un café mañana?',
  'Tienes muy buen gusto musical',
  'Vale, estoy fuera',
  '¡Hasta ahora!',
];

const BIOS_ES = [
  'Aquí por la música y por quien sepa bailar.',
  'De día en la oficina, de noche en la pista.',
  'Buscando a alguien para la primera fila.',
  'Fan de los conciertos pequeños y las cenas largas.',
  'Pregúntame por mi playlist, no te arrepentirás.',
  'Acabo de llegar a la ciudad, enséñame tus sitios.',
  'Más de vermut que de cóctel.',
  'Si suena reguetón, no respondo de mí.',
  'Viajar, cocinar y bailar, por ese orden.',
  'Timidez hasta la segunda canción, luego no paro.',
  'Llevo las mejores recomendaciones de tapas.',
  'Me quedo hasta que enciendan las luces.',
];

const int = (value: unknown) => Number(value);

async function one<T>(db: Db, query: ReturnType<typeof sql>): Promise<T> {
  return rowsOf<T>(await db.execute(query))[0]!;
}

/** Abstract portraits: a gradient, a head and shoulders, in a random palette. No fonts, no network. */
async function makePhotos(dataDir: string, count: number): Promise<{ key: string; url: string; width: number; height: number }[]> {
  const store = localMediaStore(path.join(dataDir, 'media'));
  const photos = [];
  for (let i = 0; i < count; i++) {
    const hue = Math.round((i * 360) / count);
    const skin = ['#f1c27d', '#e0ac69', '#c68642', '#8d5524', '#ffdbac'][i % 5];
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="480" height="640">
      <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
        <stop offset="0" stop-color="hsl(${hue},70%,62%)"/><stop offset="1" stop-color="hsl(${(hue + 60) % 360},65%,35%)"/>
      </linearGradient></defs>
      <rect width="480" height="640" fill="url(#g)"/>
      <ellipse cx="240" cy="640" rx="190" ry="170" fill="hsl(${(hue + 180) % 360},45%,30%)"/>
      <circle cx="240" cy="300" r="105" fill="${skin}"/>
      <path d="M135 285 Q240 ${130 + (i % 4) * 15} 345 285 Q330 190 240 180 Q150 190 135 285Z" fill="hsl(${(i * 47) % 360},35%,${15 + (i % 3) * 12}%)"/>
    </svg>`;
    const { data, info } = await sharp(Buffer.from(svg)).webp({ quality: 80 }).toBuffer({ resolveWithObject: true });
    const key = `${randomBytes(18).toString('base64url')}.webp`;
    await store.put(key, data);
    photos.push({ key, url: store.url(key), width: info.width, height: info.height });
  }
  return photos;
}

export async function seed(db: Db, options: SeedOptions): Promise<SeedResult> {
  const log = options.log ?? (() => {});
  const started = Date.now();
  const step = (label: string) => log(`${label} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  faker.seed(42);
  const firstNames = {
    male: Array.from({ length: 300 }, () => faker.person.firstName('male')),
    female: Array.from({ length: 300 }, () => faker.person.firstName('female')),
    non_binary: Array.from({ length: 300 }, () => faker.person.firstName()),
  };
  const lastNames = Array.from({ length: 500 }, () => faker.person.lastName());
  const bios = Array.from({ length: 400 }, () =>
    faker.helpers.arrayElement([
      () => `${faker.person.bio()}. Here for the music.`,
      () => `${faker.person.jobTitle()} by day, dancer by night.`,
      () => `Ask me about ${faker.music.genre()} and ${faker.food.dish().toLowerCase()}.`,
      () => `${faker.person.bio()}. Looking for someone to share the front row.`,
    ])().slice(0, 500),
  );
  // Half of them in Spanish, the app's first language.
  for (let i = 0; i < bios.length; i += 2) bios[i] = BIOS_ES[(i / 2) % BIOS_ES.length]!;
  const passwordHash = await argon2.hash(SEED_PASSWORD, { type: argon2.argon2id });
  const photos = await makePhotos(options.dataDir, options.photos);
  const urls = photos.map((photo) => photo.url);
  step(`${photos.length} photos generated`);

  // The demo account (once): it owns the photo pool, so it can edit its own profile as it is. Seeded
  // addresses can receive no mail: they count as verified, so the app shows no banner for them.
  await db.execute(sql`
    with u as (
      insert into users (email, password_hash, first_name, last_name, email_verified_at)
      values (${DEMO_EMAIL}, ${passwordHash}, 'Demo', 'User', now())
      on conflict (email) do nothing returning id
    )
    insert into profiles (user_id, name, bio, gender, date_of_birth, image, genders_to_match,
      min_matching_age, max_matching_age, is_completed)
    select id, 'Demo', 'Just arrived at the party. Say hi!', 'female',
      ((now() at time zone 'utc')::date - interval '28 years')::date, ${urls[0]},
      array['male', 'female', 'non_binary'], 18, 60, true
    from u`);
  const demo = await one<{ id: number }>(db, sql`select id from users where email = ${DEMO_EMAIL}`);
  const demoId = int(demo.id);
  await db.execute(sql`
    insert into uploads (key, owner_id, width, height)
    select p->>'key', ${demoId}, (p->>'width')::int, (p->>'height')::int
    from jsonb_array_elements(${JSON.stringify(photos)}::jsonb) p`);

  // Users and their profiles in one statement. Genders 46/46/8 %, ages 18–60 skewed young,
  // mostly looking for the other gender, ranges around their own age, active over the last month.
  const tag = Date.now().toString(36);
  const n = urls.length;
  await db.execute(sql`
    with src as materialized (
      select g, gender, age,
        greatest(18, age - 2 - floor(random() * 8))::int as min_age,
        least(100, age + 2 + floor(random() * 10))::int as max_age,
        random() < 0.97 as completed, random() as r,
        -- One to three photos from the pool, never one twice (the profile would show one photo
        -- twice): the first anywhere, the others at two distinct offsets from it.
        case when x2 < 0.5 then 1 when x2 < 0.75 then 2 else 3 end as photos,
        i1, (i1 + d2) % ${n} as i2, (i1 + 1 + (d2 + floor(random() * ${Math.max(n - 2, 0)})::int) % ${Math.max(n - 1, 1)}) % ${n} as i3
      from (
        select g,
          case when x < 0.46 then 'male' when x < 0.92 then 'female' else 'non_binary' end as gender,
          (18 + floor(power(random(), 1.6) * 43))::int as age,
          random() as x2, floor(random() * ${n})::int as i1, 1 + floor(random() * ${Math.max(n - 1, 0)})::int as d2
        from (select g, random() as x from generate_series(1, ${options.users}::int) g) s
      ) s
    ), u as (
      insert into users (email, password_hash, first_name, last_name, created_at, email_verified_at)
      select 'seed-' || ${tag} || '-' || g || '@example.com', ${passwordHash},
        ${JSON.stringify(firstNames)}::jsonb -> gender ->> floor(random() * 300)::int,
        ${JSON.stringify(lastNames)}::jsonb ->> floor(random() * 500)::int,
        now() - random() * interval '90 days', now()
      from src order by g
      returning id, email, first_name
    )
    insert into profiles (user_id, name, bio, gender, date_of_birth, image, image2, image3, genders_to_match,
      min_matching_age, max_matching_age, is_completed, last_active_at)
    select u.id, u.first_name,
      case when completed then ${JSON.stringify(bios)}::jsonb ->> floor(random() * 400)::int end,
      case when completed then gender end,
      case when completed then ((now() at time zone 'utc')::date - make_interval(years => age))::date - floor(random() * 360)::int end,
      case when completed then ${JSON.stringify(urls)}::jsonb ->> i1 end,
      case when completed and photos > 1 and ${n} > 1 then ${JSON.stringify(urls)}::jsonb ->> i2 end,
      case when completed and photos > 2 and ${n} > 2 then ${JSON.stringify(urls)}::jsonb ->> i3 end,
      case when not completed then '{}'::text[]
        when gender = 'non_binary' or r < 0.10 then array['male', 'female', 'non_binary']
        when r < 0.15 then array[gender]
        when gender = 'male' then array['female'] else array['male'] end,
      min_age, max_age, completed,
      now() - power(random(), 3) * interval '30 days'
    from u join src on u.email = 'seed-' || ${tag} || '-' || src.g || '@example.com'`);
  const range = await one<{ lo: number; hi: number }>(
    db,
    sql`select min(id) as lo, max(id) as hi from users where email like ${`seed-${tag}-%`}`,
  );
  const [lo, hi] = [int(range.lo), int(range.hi)];
  step(`${hi - lo + 1} users with profiles`);

  // Reactions: random targets among this batch, in chunks of 10,000 givers. 45 % like, 40 % dislike, 15 % skip.
  const before = await one<{ n: number }>(db, sql`select count(*) as n from reactions`);
  const chunk = 10_000;
  for (let from = lo; from <= hi; from += chunk) {
    const to = Math.min(hi, from + chunk - 1);
    await db.execute(sql`
      insert into reactions (from_user_id, to_user_id, kind, updated_at)
      select from_id, to_id,
        case when x < 0.45 then 'like' when x < 0.85 then 'dislike' else 'skip' end,
        now() - random() * interval '30 days'
      from (
        select p.user_id as from_id, ${lo}::int + floor(random() * ${hi - lo + 1})::int as to_id, random() as x
        from profiles p cross join generate_series(1, ${options.reactionsPerUser}::int) s
        where p.user_id between ${from} and ${to} and p.is_completed
      ) r
      where from_id <> to_id
      on conflict do nothing`);
    if (((from - lo) / chunk) % 10 === 9 || to === hi) step(`reactions given by users up to #${to}`);
  }

  const demoEvent = await seedDemoEvent(db, { demoId, lo, hi, attendees: options.eventAttendees });
  step(`demo event ${demoEvent.code}: ${demoEvent.attendees} checked in`);

  // The night at the demo event, for its host screen: with the attendees in a random order, about a
  // third of neighbours like each other (a match there) and a third like the one after next, each
  // like given there (its event) after both had arrived.
  await db.execute(sql`
    with present as materialized (
      select user_id, checked_in_at, row_number() over (order by random()) as n from attendances
      where event_id = ${demoEvent.id} and left_at is null and user_id between ${lo} and ${hi}
    ), liked as (
      select a.user_id as x, b.user_id as y, greatest(a.checked_in_at, b.checked_in_at) as since
      from present a join present b on b.n = a.n + 1
      where a.n % 2 = 1 and random() < 0.35
    )
    insert into reactions (from_user_id, to_user_id, kind, event_id, updated_at)
    select x, y, 'like', ${demoEvent.id}::int, since + random() * (now() - since) from (
      select x, y, since from liked union all select y, x, since from liked
      union all
      select a.user_id, b.user_id, greatest(a.checked_in_at, b.checked_in_at)
      from present a join present b on b.n = a.n + 2 where random() < 0.35
    ) l
    on conflict (from_user_id, to_user_id) do update
      set kind = 'like', event_id = excluded.event_id, updated_at = excluded.updated_at`);
  step('likes and matches at the demo event');

  // Matches: neighbours paired off with mutual likes, and 40 likes waiting for the demo account. Each
  // like given at its own time in the past (a match is made at the later of its two likes, its
  // messages spread from then to now): none at the moment the seed runs, or every chat would hold its
  // whole history in one second.
  await db.execute(sql`
    insert into reactions (from_user_id, to_user_id, kind, updated_at)
    select x, y, 'like', now() - random() * interval '30 days' from (
      select p.user_id as a, p.user_id + 1 as b from profiles p
      where p.user_id between ${lo} and ${hi - 1} and (p.user_id - ${lo}) % 2 = 0 and p.is_completed
        and random() < ${options.matchRate}
        and exists (select 1 from profiles q where q.user_id = p.user_id + 1 and q.is_completed)
    ) pairs, lateral (values (a, b), (b, a)) v(x, y)
    on conflict (from_user_id, to_user_id) do update set kind = 'like'`);
  await db.execute(sql`
    insert into reactions (from_user_id, to_user_id, kind, updated_at)
    select user_id, ${demoId}, 'like', now() - random() * interval '7 days' from profiles
    where user_id between ${lo} and ${hi} and is_completed order by random() limit 40
    on conflict (from_user_id, to_user_id) do update set kind = 'like'`);
  await db.execute(sql`
    with liked as (
      select from_user_id as id from reactions where to_user_id = ${demoId} and kind = 'like' order by from_user_id limit 6
    )
    insert into reactions (from_user_id, to_user_id, kind, updated_at)
    select ${demoId}, id, 'like', now() - random() * interval '3 days' from liked
    on conflict (from_user_id, to_user_id) do update set kind = 'like'`);

  const lastConversation = await one<{ id: number | null }>(db, sql`select max(id) as id from conversations`);
  const firstNew = int(lastConversation.id ?? 0);
  await db.execute(sql`
    insert into conversations (user_low_id, user_high_id, created_at, event_id)
    select a.from_user_id, a.to_user_id, greatest(a.updated_at, b.updated_at),
      case when a.event_id = b.event_id then a.event_id end
    from reactions a join reactions b on b.from_user_id = a.to_user_id and b.to_user_id = a.from_user_id
    where a.kind = 'like' and b.kind = 'like' and a.from_user_id < a.to_user_id
      and (a.from_user_id between ${lo} and ${hi} or a.to_user_id between ${lo} and ${hi})
    order by 3
    on conflict (user_low_id, user_high_id) do nothing`);
  await db.execute(sql`
    insert into conversation_members (conversation_id, user_id)
    select id, u from conversations, lateral (values (user_low_id), (user_high_id)) v(u) where id > ${firstNew}
    on conflict do nothing`);
  // Each match's analytics event, as the like that makes one records it (the moderators' daily matches).
  await db.execute(sql`
    insert into analytics_events (user_id, name, created_at)
    select user_low_id, 'matched', created_at from conversations where id > ${firstNew} order by created_at, id`);
  step('matches and their conversations');

  const demoFresh = sql`select id from conversations where id > ${firstNew} and ${demoId}::int in (user_low_id, user_high_id)
    order by created_at desc limit 2`;
  // Messages: a fifth of the matches stay silent, the rest hold 1–150 lines (about 40 % have 50+),
  // spread between the match and the chat's last word (more often lately than long ago: not every
  // chat is still going on as the seed runs), written in time order so that ids follow time.
  await db.execute(sql`
    insert into messages (conversation_id, sender_id, content, created_at)
    select c.id, case when random() < 0.5 then c.user_low_id else c.user_high_id end,
      (case when k.spanish then ${JSON.stringify(CHAT_LINES_ES)}::jsonb else ${JSON.stringify(CHAT_LINES)}::jsonb end)
        ->> floor(random() * ${CHAT_LINES.length})::int,
      c.created_at + k.span * (s::float8 / k.n)
    from conversations c
    cross join lateral (
      select (now() - c.created_at) * (1 - power(random(), 2)) as span, random() < 0.5 as spanish
    ) t
    cross join lateral (
      -- At most one line every two minutes of the chat's span (a match of tonight, or a chat that went
      -- quiet soon after its match, has had little time): never a history written in one moment.
      -- The demo account's two newest matches are new ones to open, its others all chats going on.
      select least(case when c.id in (${demoFresh}) then 0
          when random() < 0.2 and ${demoId}::int not in (c.user_low_id, c.user_high_id) then 0
          else 1 + floor(power(random(), 1.5) * 150) end,
        1 + floor(extract(epoch from t.span) / 120))::int as n, t.span, t.spanish
    ) k
    cross join lateral generate_series(1, k.n) s
    where c.id > ${firstNew}
    order by c.id, s`);
  // One side has read everything, the other about half.
  await db.execute(sql`
    update conversation_members cm set last_read_message_id = case
      when cm.user_id = c.user_low_id then l.last_id
      else l.last_id - floor(random() * 10)::int end
    from conversations c
    join (select conversation_id, max(id) as last_id from messages where conversation_id > ${firstNew} group by conversation_id) l
      on l.conversation_id = c.id
    where c.id = cm.conversation_id`);
  step('messages');

  const reported = await seedReports(db, { demoId, lo, hi, dataDir: options.dataDir });
  step(`${reported} reports for the moderators`);
  await db.execute(sql`analyze`);

  const after = await one<{ reactions: number; conversations: number; messages: number }>(
    db,
    sql`select (select count(*) from reactions) as reactions,
      (select count(*) from conversations where id > ${firstNew}) as conversations,
      (select count(*) from messages m join conversations c on c.id = m.conversation_id where c.id > ${firstNew}) as messages`,
  );
  return {
    users: hi - lo + 1,
    firstId: lo,
    lastId: hi,
    reactions: int(after.reactions) - int(before.n),
    conversations: int(after.conversations),
    messages: int(after.messages),
    demoUserId: demoId,
    demoEvent,
  };
}

/**
 * The demo event: open now, organized by the demo user, with the batch's people (most of them, or
 * `attendees` exactly) and the demo user checked in, arrivals spread over the last hour, so that the
 * deck is the room and the host screen has life. A later run reuses the event while it is open.
 */
async function seedDemoEvent(db: Db, options: { demoId: number; lo: number; hi: number; attendees?: number }) {
  const HOUR = 3_600_000;
  let event = rowsOf<{ id: number; code: string }>(
    await db.execute(sql`
      select id, code from events
      where organizer_id = ${options.demoId} and name = ${DEMO_EVENT_NAME} and now() between starts_at and ends_at - interval '1 hour'
      order by id desc limit 1`),
  )[0];
  if (!event) {
    const now = Date.now();
    await seedOrganizersOtherEvents(db, options);
    const created = await createEvent(db, options.demoId, {
      name: DEMO_EVENT_NAME,
      venue: 'The rooftop',
      starts_at: new Date(now - HOUR).toISOString(),
      ends_at: new Date(now + 47 * HOUR).toISOString(),
      join_mode: 'qr',
    });
    event = { id: created.id, code: created.code };
  }
  const eventId = Number(event.id);
  const completed = rowsOf<{ n: number }>(
    await db.execute(sql`select count(*)::int as n from profiles where user_id between ${options.lo} and ${options.hi} and is_completed`),
  )[0];
  const wanted = Math.min(Number(completed?.n ?? 0), options.attendees ?? Math.round(Number(completed?.n ?? 0) * 0.8));
  // One current event each: whoever is checked in elsewhere leaves it first (a statement of its own,
  // so that the one-open-attendance index never sees two).
  await db.execute(sql`
    update attendances set left_at = now()
    where left_at is null and event_id <> ${eventId}
      and (user_id between ${options.lo} and ${options.hi} or user_id = ${options.demoId})`);
  await db.execute(sql`
    insert into attendances (event_id, user_id, checked_in_at)
    select ${eventId}, user_id, now() - random() * interval '55 minutes' from (
      (select user_id from profiles where user_id between ${options.lo} and ${options.hi} and is_completed
        order by random() limit ${wanted})
      union select ${options.demoId}
    ) everyone
    on conflict (event_id, user_id) do update set left_at = null`);
  return { id: eventId, code: event.code, attendees: wanted + 1 };
}

/**
 * Beside the demo event, the demo organizer's others (made with it, so once while it lasts): one last
 * week, closed, whose host screen shows who came (a third of the batch, arrived and gone within it),
 * and one next week, upcoming. Both at 22:00 in Spain (21:00 UTC), for five hours.
 */
async function seedOrganizersOtherEvents(db: Db, options: { demoId: number; lo: number; hi: number }) {
  const DAY = 86_400_000;
  const tonight = Math.floor(Date.now() / DAY) * DAY + 21 * 3_600_000;
  const past = await createEvent(db, options.demoId, {
    name: 'Warm-up night',
    venue: 'Sala Apolo',
    starts_at: new Date(tonight - 7 * DAY).toISOString(),
    ends_at: new Date(tonight - 7 * DAY + 5 * 3_600_000).toISOString(),
    join_mode: 'qr',
  });
  await createEvent(db, options.demoId, {
    name: 'New moon party',
    venue: 'The rooftop',
    starts_at: new Date(tonight + 7 * DAY).toISOString(),
    ends_at: new Date(tonight + 7 * DAY + 5 * 3_600_000).toISOString(),
    join_mode: 'qr',
  });
  await db.execute(sql`
    insert into attendances (event_id, user_id, checked_in_at, left_at)
    select ${past.id}::int, user_id, arrived, arrived + random() * (e.ends_at - arrived)
    from (
      select user_id, random() as x from profiles
      where user_id between ${options.lo} and ${options.hi} and is_completed
    ) p
    join events e on e.id = ${past.id}
    cross join lateral (select e.starts_at - interval '30 minutes' + random() * interval '3 hours' + p.user_id * interval '0 seconds' as arrived) a
    where p.x < 0.35`);
}

const REPORTS: { reason: ReportInput['reason']; details: string; chat: boolean }[] = [
  { reason: 'harassment', details: 'Kept messaging me after I said no, and again from the bar.', chat: true },
  { reason: 'spam', details: 'Every message is a link to a promo code for another party.', chat: true },
  { reason: 'fake_profile', details: 'These photos are of someone else, I know her.', chat: false },
  { reason: 'underage', details: 'Told me at the entrance they are 16.', chat: false },
];

/**
 * A few reports for the moderators' queue (`npm run admin -- grant-moderator`), made as the app makes
 * them (a snapshot of the profile and the chat, the reporter blocking the reported person): by and
 * about this batch's people, never the demo account, spread over the last day. How many were made.
 */
async function seedReports(db: Db, options: { demoId: number; lo: number; hi: number; dataDir: string }) {
  const media = localMediaStore(path.join(options.dataDir, 'media'));
  const evidence = localMediaStore(path.join(options.dataDir, 'evidence'));
  const chats = rowsOf<{ id: number; a: number; b: number }>(
    await db.execute(sql`
      select c.id, c.user_low_id as a, c.user_high_id as b from conversations c
      where c.user_low_id between ${options.lo} and ${options.hi} and c.user_high_id between ${options.lo} and ${options.hi}
        and c.ended_at is null and exists (select 1 from messages m where m.conversation_id = c.id)
      order by random() limit 2`),
  );
  const people = rowsOf<{ id: number }>(
    await db.execute(sql`
      select user_id as id from profiles
      where user_id between ${options.lo} and ${options.hi} and is_completed order by random() limit 4`),
  );
  let made = 0;
  for (const item of REPORTS) {
    const chat = item.chat ? chats.shift() : undefined;
    const [reporter, reportedId] = (chat ? [chat.a, chat.b] : [people.shift()?.id, people.shift()?.id]).map(Number);
    if (!reporter || !reportedId || reporter === options.demoId || reportedId === options.demoId) continue;
    const input: ReportInput = { user_id: reportedId, reason: item.reason, details: item.details, conversation_id: chat?.id };
    const outcome = await report(db, evidence, media, reporter, input, async () => {});
    if (!outcome) continue;
    made++;
  }
  await db.execute(sql`
    update reports set created_at = now() - random() * interval '20 hours'
    where status = 'open' and reporter_id between ${options.lo} and ${options.hi}`);
  return made;
}

const USAGE = `Usage: npm run seed -- [--users N] [--event-attendees M] [--reactions-per-user R] [--match-rate S] [--photos P]
  --users N               users to add, 2 to 2,000,000 (default 1000)
  --event-attendees M     how many of them are checked in to the demo event (default 80 %)
  --reactions-per-user R  reactions each of them gives, on average (default 30)
  --match-rate S          share of them paired off with a mutual like, 0 to 1 (default 0.2)
  --photos P              generated photos they share, at least 1 (default 48)
It adds to DATABASE_URL's database, or to the embedded one in DATA_DIR (default ./data): stop a server
running on that one first.`;

/** A flag's number when it is one `check` accepts; null otherwise. */
function numberOf(text: string, check: (value: number) => boolean): number | null {
  const value = Number(text);
  return text.trim() !== '' && Number.isFinite(value) && check(value) ? value : null;
}

/**
 * `npm run seed`: its flags checked before anything is written (a batch cut short by a bad flag would
 * stay half made), and a database it cannot open said in one line, as `npm run admin` says it. Returns
 * the process's exit status.
 */
export async function seedCommand(argv: string[], env: NodeJS.ProcessEnv = process.env, out = console): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        users: { type: 'string', default: '1000' },
        'reactions-per-user': { type: 'string', default: '30' },
        'match-rate': { type: 'string', default: '0.2' },
        photos: { type: 'string', default: '48' },
        'event-attendees': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      allowPositionals: false,
    }));
  } catch (error) {
    out.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    out.log(USAGE);
    return 0;
  }
  const whole = (min: number, max = Number.MAX_SAFE_INTEGER) => (value: number) => Number.isInteger(value) && value >= min && value <= max;
  const users = numberOf(values.users, whole(2, 2_000_000));
  const reactionsPerUser = numberOf(values['reactions-per-user'], whole(0));
  const matchRate = numberOf(values['match-rate'], (value) => value >= 0 && value <= 1);
  const photos = numberOf(values.photos, whole(1));
  const eventAttendees = values['event-attendees'] === undefined ? undefined : numberOf(values['event-attendees'], whole(0));
  const bad = [
    users === null && `--users ${values.users}`,
    reactionsPerUser === null && `--reactions-per-user ${values['reactions-per-user']}`,
    matchRate === null && `--match-rate ${values['match-rate']}`,
    photos === null && `--photos ${values.photos}`,
    eventAttendees === null && `--event-attendees ${values['event-attendees']}`,
  ].filter(Boolean);
  if (users === null || reactionsPerUser === null || matchRate === null || photos === null || eventAttendees === null) {
    out.error(`Not a number it can use: ${bad.join(', ')}.\n${USAGE}`);
    return 2;
  }
  const opened = await openCommandDatabase(env, out, { again: 'seed again (or set DATABASE_URL to seed PostgreSQL)' });
  if (typeof opened === 'number') return opened;
  const { database, dataDir } = opened;
  out.log(`Seeding ${users} users into ${database.driver === 'postgres' ? 'PostgreSQL' : `PGlite at ${dataDir}/db`}…`);
  try {
    const result = await seed(database.db, {
      users,
      reactionsPerUser,
      matchRate,
      photos,
      eventAttendees,
      dataDir,
      log: (line) => out.log(`  ${line}`),
    });
    out.log(
      `Done: ${result.users} users (#${result.firstId}–#${result.lastId}), ${result.reactions} reactions, ` +
        `${result.conversations} matches, ${result.messages} messages.\n` +
        `Log in as ${DEMO_EMAIL} (or any seeded e-mail) with the password "${SEED_PASSWORD}".\n` +
        `Demo event "${DEMO_EVENT_NAME}" (code ${result.demoEvent.code}): ${result.demoEvent.attendees} checked in, the demo user among them; ` +
        `its host screen is /app/events/${result.demoEvent.id}/host/.`,
    );
    return 0;
  } finally {
    await database.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await seedCommand(process.argv.slice(2));
}
