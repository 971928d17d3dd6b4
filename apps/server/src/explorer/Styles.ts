/**
 * The explorer's one style sheet, served as a file at /assets/explorer.css
 * (the page's Content-Security-Policy allows styles from this origin only, so
 * no inline style). System fonts only: nothing is loaded from elsewhere.
 * Grades carry a colour as an extra; the letter is always printed.
 */
export const ExplorerCss = `
:root { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: #1b1f24; background: #f6f7f9; line-height: 1.45; }
* { box-sizing: border-box; }
body { margin: 0; }
main, footer.site, header.site { overflow-wrap: break-word; }
a { color: #1f4fa0; }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, .table-wrap:focus-visible { outline: 3px solid #f0a500; outline-offset: 2px; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: .5rem; top: .5rem; background: #fff; padding: .4rem; z-index: 2; }
header.site { background: #14213d; color: #fff; padding: .6rem 1rem; }
header.site a { color: #fff; }
.brand { font-weight: 700; font-size: 1.1rem; text-decoration: none; }
.framework { display: block; font-size: .8rem; color: #c9d3e6; }
nav.main ul { list-style: none; display: flex; flex-wrap: wrap; gap: .25rem .9rem; margin: .5rem 0 0; padding: 0; }
nav.main a[aria-current=page] { text-decoration: underline; font-weight: 700; }
.session { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; margin-top: .5rem; font-size: .9rem; }
.session input { padding: .3rem .4rem; font: inherit; min-width: 0; flex: 1 1 12rem; max-width: 22rem; }
button, .button { font: inherit; padding: .3rem .7rem; border: 1px solid #8a94a3; border-radius: 4px; background: #fff; color: #1b1f24; cursor: pointer; }
main { max-width: 1200px; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.5rem; margin: .25rem 0 .5rem; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; }
.lead, .muted { color: #4a5360; }
.table-wrap { overflow-x: auto; background: #fff; border: 1px solid #e1e4e8; }
table { width: 100%; border-collapse: collapse; font-size: .92rem; }
th, td { text-align: left; padding: .45rem .55rem; border-bottom: 1px solid #e1e4e8; vertical-align: top; }
th { background: #eef0f3; font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
caption { text-align: left; padding: .4rem .55rem; color: #4a5360; }
.grade { display: inline-block; min-width: 2.6rem; text-align: center; font-weight: 700; padding: .05rem .35rem; border-radius: 3px; border: 1px solid #6a7380; background: #fff; color: #1b1f24; }
.grade-AAA, .grade-AA { background: #d7f0dd; border-color: #1e7a3b; }
.grade-A, .grade-BBB { background: #e6f0d2; border-color: #56741c; }
.grade-B { background: #fff0c2; border-color: #8a6a00; }
.grade-C { background: #fde0c8; border-color: #9a4a00; }
.grade-D { background: #fbd5d3; border-color: #8a1c17; }
.grade-none { color: #4a5360; font-weight: 400; }
.grade.big { font-size: 2rem; padding: .2rem .8rem; }
.change-up { color: #135c2c; }
.change-down { color: #8a1c17; }
.tier { display: inline-block; font-size: .8rem; padding: 0 .35rem; border-radius: 3px; border: 1px solid #6a7380; }
.tier-confirmed { background: #fbd5d3; }
.tier-corroborated { background: #fff0c2; }
.tier-rumored { background: #eef0f3; }
form.filters { display: flex; flex-wrap: wrap; gap: .5rem .8rem; align-items: end; margin: .5rem 0 1rem; }
form.filters label { display: flex; flex-direction: column; font-size: .85rem; gap: .15rem; }
form.filters input, form.filters select { font: inherit; padding: .3rem .4rem; }
.pager { display: flex; gap: 1rem; align-items: center; margin: .75rem 0; flex-wrap: wrap; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(15rem, 1fr)); gap: .8rem; }
.card { background: #fff; border: 1px solid #e1e4e8; padding: .8rem; }
.figures { display: flex; flex-wrap: wrap; gap: 1rem 2rem; align-items: center; background: #fff; border: 1px solid #e1e4e8; padding: .8rem; }
.figures dt { font-size: .8rem; color: #4a5360; }
.figures dd { margin: 0; font-size: 1.2rem; font-weight: 600; }
svg.chart { width: 100%; height: auto; max-width: 760px; background: #fff; border: 1px solid #e1e4e8; }
svg.chart text { font-size: 11px; fill: #1b1f24; }
svg.chart .bar { fill: #2f6fbf; }
svg.chart .weight { fill: #c9d3e6; }
svg.chart .line { fill: none; stroke: #2f6fbf; stroke-width: 2; }
svg.chart .dot { fill: #14213d; }
svg.chart .axis { stroke: #8a94a3; stroke-width: 1; }
.message { padding: .6rem .8rem; border: 1px solid #8a94a3; background: #fff; }
.message.error { border-color: #8a1c17; color: #8a1c17; }
details.answer { margin: .3rem 0; }
footer.site { max-width: 1200px; margin: 2rem auto 0; padding: .75rem 1rem 2rem; border-top: 1px solid #e1e4e8; font-size: .85rem; color: #4a5360; }
footer.site p { margin: .25rem 0; }
@media (max-width: 600px) { main { padding: .6rem; } th, td { padding: .35rem .4rem; } .hide-narrow { display: none; } }
`
