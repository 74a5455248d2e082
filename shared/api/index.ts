export * from './channels';
export * from './result';
export * from './push-events';
export * from './types';
export * from './transport';
export * from './batch';
export * from './reconcile';
export * from './overview';
