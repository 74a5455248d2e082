export * from './channels';
export * from './types';
