declare module 'shacl-engine' {
  import type { DatasetCore, Literal, NamedNode, Quad, Term } from '@rdfjs/types';
  /** One step of a result's path, as shacl-engine gives it. */
  export interface PathStep {
    quantifier: string;
    start: string;
    end: string;
    predicates: NamedNode[];
  }
  export interface ValidationResult {
    focusNode?: { term: Term };
    path?: PathStep[];
    value?: { term: Term };
    message: Literal[];
    severity: NamedNode;
    constraintComponent: NamedNode;
    shape?: { ptr: { term: Term } };
  }
  export interface ValidationReport {
    conforms: boolean;
    results: ValidationResult[];
  }
  export interface Factory {
    namedNode(value: string): NamedNode;
    dataset(quads?: Quad[]): DatasetCore;
    [name: string]: unknown;
  }
  export class Validator {
    constructor(shapes: DatasetCore, options: { factory: Factory });
    validate(data: { dataset: DatasetCore }): Promise<ValidationReport>;
  }
}
