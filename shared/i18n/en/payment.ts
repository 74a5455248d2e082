/** New payment screen. */
export default {
  title: 'New payment',
  intro: 'Ask a customer to pay: they approve the prompt on their phone.',
  introProfile: 'Ask a customer to pay: they approve the prompt on their phone (profile {{name}}, {{environment}}).',
  form: 'New payment',
  sending: 'Sending…',
  sendingLabel: 'Sending payment',
  submit: 'Request payment',
  openExisting: 'Open that payment',
} as const;
