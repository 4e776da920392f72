// The smallest form session the script sandbox runs: one field calculated from another (`t = 2 × a`).
import { DOC_CALCULATE, planSessions, sessionContext } from '../../src/pdf/scripts/session-plan.js';

const text = (name: string, actions: Record<string, string> = {}) => ({
  name,
  kind: 'text' as const,
  value: '',
  actions,
  readOnly: false,
});
const plan = planSessions({
  fields: [text('a'), text('t', { Calculate: 'event.value = 2 * AFMakeNumber(this.getField("a").value);' })],
  calculationOrder: ['t'],
  documentScripts: [],
});
export const context = sessionContext(plan, new Map());
export const steps = [{ id: 'doc', name: DOC_CALCULATE }];
