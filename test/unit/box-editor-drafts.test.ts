import { describe, expect, it } from 'vitest';
import {
  type Draft,
  draftsOf,
  editsOf,
  freeKey,
  newDraft,
  withOptions,
  withType,
  withWidgetBox,
} from '../../web/src/pages/template/BoxEditorDrafts.js';

// The box editor's model: the one list of edits derived from the drafts (what POST …/field-edits gets).

const field = (name: string, type: string, widgets: { page: number; rect: number[] }[], extra = {}) =>
  ({
    name,
    type,
    required: false,
    label: null,
    labelSource: 'none',
    suggestedName: name,
    pdfMeta: { originalName: `form.${name}`, page: widgets[0].page, rect: widgets[0].rect },
    ...extra,
  }) as any;

const BASE = draftsOf(
  [
    field('name', 'text', [{ page: 1, rect: [10, 10, 110, 30] }]),
    field('city', 'text', [{ page: 1, rect: [10, 40, 110, 60] }]),
    field('pick', 'radio', [{ page: 2, rect: [10, 10, 20, 20] }], { options: ['a', 'b'] }),
  ],
  [
    { field: 'name', page: 1, rect: [10, 10, 110, 30] },
    { field: 'city', page: 1, rect: [10, 40, 110, 60] },
    { field: 'pick', page: 2, rect: [10, 10, 20, 20] },
    { field: 'pick', page: 2, rect: [30, 10, 40, 20] },
  ],
);
const byId = (ds: Draft[], id: string) => ds.find((d) => d.id === id)!;
const replace = (ds: Draft[], d: Draft) => ds.map((x) => (x.id === d.id ? d : x));

describe('BoxEditorDrafts: drafts -> field edits', () => {
  it('sends nothing for the saved template, and one update for a field moved twice', () => {
    expect(editsOf(BASE, BASE)).toEqual([]);
    let ds = replace(BASE, withWidgetBox(byId(BASE, 'name'), 0, [20, 10, 120, 30], false));
    ds = replace(ds, withWidgetBox(byId(ds, 'name'), 0, [20, 0, 120, 20], false));
    expect(editsOf(BASE, ds)).toEqual([{ op: 'update', name: 'name', changes: { page: 1, rect: [20, 0, 120, 20] } }]);
    // moved back where it was: nothing to send
    ds = replace(ds, withWidgetBox(byId(ds, 'name'), 0, [10, 10, 110, 30], false));
    expect(editsOf(BASE, ds)).toEqual([]);
  });

  it('moves every widget of a group together, resizes only the one held, and sends widgets', () => {
    const moved = withWidgetBox(byId(BASE, 'pick'), 1, [35, 15, 45, 25], false);
    expect(moved.widgets.map((w) => w.rect)).toEqual([
      [15, 15, 25, 25],
      [35, 15, 45, 25],
    ]);
    const resized = withWidgetBox(byId(BASE, 'pick'), 0, [10, 10, 25, 25], true);
    expect(resized.widgets[1].rect).toEqual([30, 10, 40, 20]);
    expect(editsOf(BASE, replace(BASE, moved))).toEqual([
      { op: 'update', name: 'pick', changes: { widgets: moved.widgets } },
    ]);
  });

  it('orders deletes, updates, adds; a drawn field removed again is not sent', () => {
    const added = newDraft('new:1', 'dropdown', 1, [200, 200, 300, 220], 'dropdown_1', 5);
    const ds = [
      ...replace(replace(BASE, { ...byId(BASE, 'city'), deleted: true }), { ...byId(BASE, 'name'), required: true }),
      added,
    ];
    expect(editsOf(BASE, ds)).toEqual([
      { op: 'delete', name: 'city' },
      { op: 'update', name: 'name', changes: { required: true } },
      {
        op: 'add',
        field: {
          name: 'dropdown_1',
          type: 'dropdown',
          page: 1,
          rect: [200, 200, 300, 220],
          options: ['Option 1', 'Option 2', 'Option 3'],
        },
      },
    ]);
    expect(editsOf(BASE, [...BASE, { ...added, deleted: true }])).toEqual([]);
  });

  it('gives new fields usable defaults: a tap-sized box, a comb of N cells, radio buttons per option', () => {
    const tapped = newDraft('new:1', 'checkbox', 1, [50, 50, 51, 51], 'checkbox_1', 5);
    expect(tapped.widgets[0].rect).toEqual([50, 39, 62, 51]); // 12 pt below where it was tapped
    const comb = newDraft('new:2', 'comb', 1, [0, 0, 90, 20], 'comb_1', 3);
    expect(editsOf([], [comb])).toEqual([
      { op: 'add', field: { name: 'comb_1', type: 'comb', page: 1, rect: [0, 0, 90, 20], cells: 3 } },
    ]);
    const radio = withOptions(newDraft('new:3', 'radio', 2, [0, 0, 90, 20], 'radio_1', 5), ['x', 'y', 'z']);
    const [add] = editsOf([], [radio]);
    expect(add).toMatchObject({ op: 'add', field: { type: 'radio', options: ['x', 'y', 'z'] } });
    expect(add.op === 'add' && add.field.widgets?.map((w) => w.page)).toEqual([2, 2, 2]);
    expect(add.op === 'add' && add.field.page).toBeUndefined();
  });

  it('picks the first key no field and no PDF name uses', () => {
    expect(freeKey('text', new Set(['text_1', 'text_2', 'date_3']))).toBe('text_3');
  });

  it('replaces a field whose key or type changed (a detection fixed in review): delete, then add', () => {
    const renamed = replace(BASE, { ...byId(BASE, 'name'), key: 'full_name' });
    expect(editsOf(BASE, renamed)).toEqual([
      { op: 'delete', name: 'name' },
      { op: 'add', field: { name: 'full_name', type: 'text', page: 1, rect: [10, 10, 110, 30] } },
    ]);
    const moved = withWidgetBox(byId(BASE, 'city'), 0, [20, 40, 120, 60], false);
    const retyped = replace(BASE, withType(moved, 'signature', 5));
    expect(editsOf(BASE, retyped)).toEqual([
      { op: 'delete', name: 'city' },
      { op: 'add', field: { name: 'city', type: 'signature', page: 1, rect: [20, 40, 120, 60] } },
    ]);
  });

  it("retypes in the field's box: radio buttons laid out in it, a comb with cells, one box out of a group", () => {
    const radio = withType(byId(BASE, 'name'), 'radio', 5);
    expect(radio.options).toEqual(['Option 1', 'Option 2']);
    expect(radio.widgets).toHaveLength(2);
    for (const w of radio.widgets) {
      expect(w.rect[0]).toBeGreaterThanOrEqual(10);
      expect(w.rect[2]).toBeLessThanOrEqual(110);
    }
    expect(withType(byId(BASE, 'name'), 'comb', 7).cells).toBe(7);
    const text = withType(byId(BASE, 'pick'), 'text', 5);
    expect(text.widgets).toEqual([{ page: 2, rect: [10, 10, 40, 20] }]);
    expect(text.options).toBeUndefined();
    expect(withType(byId(BASE, 'pick'), 'dropdown', 5).options).toEqual(['a', 'b']);
  });
});
