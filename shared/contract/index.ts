export * from './codes';
export * from './schemas';
export * from './timestamps';
export * from './outcomes';
export * from './inspector';
export * from './scenarios';
