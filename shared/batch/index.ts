export * from './columns';
export * from './parse';
export * from './validate';
export * from './files';
