export * from './channels';
export * from './types';
export * from './transport';
export * from './overview';
