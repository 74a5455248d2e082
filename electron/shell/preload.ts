// Placeholder: the main-process issue replaces this with the preload bridge.
export {};
