import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

// Validates values against a named schema of an OpenAPI 3.1 document, as a client generated from it would
// read them: the document is added whole, its `#/components/schemas/...` references resolve inside it.

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export function componentValidator(doc: object): (name: string) => ValidateFunction {
  // strict off: the document also holds OpenAPI keywords (discriminator, example) Ajv does not know
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  ajv.addFormat('date-time', DATE_TIME);
  ajv.addFormat('binary', true);
  ajv.addSchema({ ...doc, $id: 'openapi.json' });
  return (name) => {
    const validate = ajv.getSchema(`openapi.json#/components/schemas/${name}`);
    if (!validate) throw new Error(`no component schema ${name}`);
    return validate;
  };
}
