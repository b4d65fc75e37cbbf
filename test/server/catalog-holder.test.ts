/**
 * The served set under a hot switch: a request's lease keeps the set it
 * began on open, released once however often release() is called, and a
 * replaced set closes when its last lease comes back.
 */
import { describe, expect, it } from "vitest";
import { CatalogHolder } from "../../server/artifact-set/catalog-holder.js";

class FakeSet {
  closed = 0;
  constructor(readonly name: string) {}
  close(): void {
    this.closed++;
  }
}

describe("CatalogHolder", () => {
  it("closes a replaced set once its last lease is released, and a lease released twice counts once", () => {
    const closed: string[] = [];
    const first = new FakeSet("first");
    const holder = new CatalogHolder(first, { onClosed: (set) => closed.push(set.name) });
    const a = holder.acquire();
    const b = holder.acquire();
    expect(a.catalog).toBe(first);
    holder.swap(new FakeSet("second"));
    expect(holder.current.name).toBe("second");
    expect(holder.retiredOpen).toBe(1);
    a.release();
    a.release();
    // b still holds the first set: a's second release must not count as b's.
    expect(first.closed).toBe(0);
    expect(holder.retiredOpen).toBe(1);
    b.release();
    expect(first.closed).toBe(1);
    expect(closed).toEqual(["first"]);
    expect(holder.retiredOpen).toBe(0);
    b.release();
    expect(first.closed).toBe(1);
  });

  it("closes a replaced set at once when no request holds it, and a lease taken after a swap holds the new set", () => {
    const first = new FakeSet("first");
    const holder = new CatalogHolder(first);
    holder.acquire().release();
    const second = new FakeSet("second");
    holder.swap(second);
    expect(first.closed).toBe(1);
    const lease = holder.acquire();
    expect(lease.catalog).toBe(second);
    holder.swap(new FakeSet("third"));
    expect(second.closed).toBe(0);
    lease.release();
    expect(second.closed).toBe(1);
  });
});
