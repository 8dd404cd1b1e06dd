import { describe, expect, it } from 'vitest';
import { Thread } from '../../loadtest/thread';

describe("the load tool's hearing of a conversation", () => {
  it('moves along pushes that follow on, and over those that came ahead once the one between comes', () => {
    const thread = new Thread();
    expect(thread.pushed(3, null)).toBe(true);
    expect(thread.pushed(5, 3)).toBe(true);
    expect(thread.heardTo).toBe(5);
    // 8 overtook 6 (stored just before it): news, but no cursor past 6 yet.
    expect(thread.pushed(8, 6)).toBe(true);
    expect(thread.heardTo).toBe(5);
    expect(thread.pushed(6, 5)).toBe(true);
    expect(thread.heardTo).toBe(8);
  });

  it('tells a message heard twice from one that overtook another', () => {
    const thread = new Thread();
    thread.pushed(3, null);
    expect(thread.pushed(8, 6)).toBe(true);
    // The same push again, ahead or not: heard already.
    expect(thread.pushed(8, 6)).toBe(false);
    expect(thread.pushed(3, null)).toBe(false);
  });

  it('lets the catch-up fill what the socket dropped: its page moves the cursor, and a late push of it is no news', () => {
    const thread = new Thread();
    thread.pushed(5, null);
    thread.pushed(8, 6);
    // The socket dropped before 6's push: the catch-up asks after 5, not 8, and its page reaches 9.
    expect(thread.heardTo).toBe(5);
    thread.fetched(9);
    expect(thread.heardTo).toBe(9);
    expect(thread.pushed(6, 5)).toBe(false);
    expect(thread.pushed(8, 6)).toBe(false);
    expect(thread.pushed(10, 9)).toBe(true);
    expect(thread.heardTo).toBe(10);
  });

  it("follows a server that does not tell the previous message as the tool did: each push moves the cursor", () => {
    const thread = new Thread();
    expect(thread.pushed(4, undefined)).toBe(true);
    expect(thread.pushed(7, undefined)).toBe(true);
    expect(thread.heardTo).toBe(7);
    expect(thread.pushed(6, undefined)).toBe(false);
  });
});
