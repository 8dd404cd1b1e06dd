import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Suites that spend most of their time waiting through a simulated party. Without the durations of an
 * earlier run (a fresh clone, as in CI) vitest starts the largest files first, and these small ones
 * came last: one worker waited through a party alone while the other had nothing left to run.
 */
const PARTIES = ['tests/loadtest/party.test.ts', 'tests/loadtest/lost.test.ts', 'tests/loadtest/unanswered-send.test.ts'];

/**
 * vitest's order, with the parties spread through their project's files: the first at the start, the
 * others evenly after it, none at the end. Two parties side by side would leave both workers waiting.
 */
export class PartiesSpread extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const isParty = (file: TestSpecification) => PARTIES.some((party) => file.moduleId.endsWith(party));
    const projects = [...new Set(sorted.map((file) => file.project.name))];
    return projects.flatMap((name) => {
      const own = sorted.filter((file) => file.project.name === name);
      const parties = own.filter(isParty);
      const order = own.filter((file) => !isParty(file));
      const others = order.length;
      parties.forEach((party, i) => order.splice(Math.floor((i * others) / parties.length) + i, 0, party));
      return order;
    });
  }
}
