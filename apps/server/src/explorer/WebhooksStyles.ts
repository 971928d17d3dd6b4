/**
 * The Webhooks tab's part of the explorer's one style sheet (Styles.ts joins
 * it in): delivery status badges (the status is always written, the colour
 * is an extra), the create form's fields and their problems, the one-button
 * forms in table rows, and the panel that shows a new signing key once.
 */
export const WebhooksCss = `
.status { display: inline-block; padding: 0 .4rem; border-radius: 3px; font-size: .82rem; border: 1px solid #6a7380; }
.status-failed { background: #fbd5d3; color: #8a1c17; border-color: #8a1c17; }
.status-pending { background: #fff0c2; color: #5c4600; border-color: #8a6a00; }
.status-delivered { background: #d7f0dd; color: #135c2c; border-color: #1e7a3b; }
.status-active { background: #d7f0dd; color: #135c2c; border-color: #1e7a3b; }
.status-disabled { background: #fbd5d3; color: #8a1c17; border-color: #8a1c17; }
.message.ok { border-color: #1e7a3b; color: #135c2c; }
form.inline { display: inline; margin: 0; }
td.actions { white-space: nowrap; }
td.actions a { margin-right: .6rem; }
ol.attempts { margin: 0; padding-left: 1.2rem; }
code { font-size: .85em; word-break: break-all; }
#rule-form { display: grid; gap: .8rem; max-width: 44rem; background: #fff; border: 1px solid #e1e4e8; padding: .9rem; }
#rule-form .field { display: flex; flex-direction: column; gap: .2rem; border: 0; margin: 0; padding: 0; }
#rule-form fieldset.field { flex-flow: row wrap; gap: .3rem 1rem; }
#rule-form legend { font-weight: 600; margin-bottom: .2rem; }
#rule-form label { font-weight: 600; }
#rule-form label.check { font-weight: 400; }
#rule-form input[type=text] { font: inherit; padding: .35rem .5rem; width: 100%; }
#rule-form [aria-invalid=true] input[type=text], #rule-form input[aria-invalid=true] { border: 2px solid #8a1c17; }
#rule-form .hint { margin: 0; font-size: .85rem; color: #4a5360; }
#rule-form .field-error { margin: 0; font-size: .9rem; color: #8a1c17; font-weight: 600; flex-basis: 100%; }
#rule-form .field-error::before { content: "Error: "; }
button.primary { background: #1f4fa0; border-color: #1f4fa0; color: #fff; justify-self: start; }
.key-once { background: #fff8e0; border: 2px solid #8a6a00; padding: .4rem .9rem; margin: 1rem 0; }
.key-once h2 { margin-top: .4rem; }
#signing-key { font-size: 1rem; user-select: all; }
#log-title, .key-once p { overflow-wrap: anywhere; }
`
