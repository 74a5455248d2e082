// Placeholder: the main-process issue replaces this with the Electron shell.
export {};
