export * from './codes';
export * from './schemas';
export * from './timestamps';
export * from './outcomes';
export * from './inspector';
export * from './canonical';
export * from './charges';
export * from './scenarios';
