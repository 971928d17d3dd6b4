/**
 * The dashboard page's script, served at /dashboard/app.js. Plain browser
 * JavaScript with no build step. Every value from the API is written with
 * textContent, never as HTML, so a rule name, URL or receiver error cannot
 * inject markup. A quantum reading the source gives no figure for (null) is
 * written "not assessed" (NotAssessed), never "null".
 */

/** How a missing quantum reading (a null qri, band or stage) is written. */
export const NotAssessed = "not assessed"

export const DashboardScript = String.raw`"use strict";
(() => {
  const api = "/api/v1";
  const storageKey = "ratings.dashboard.key";
  const $ = (id) => document.getElementById(id);
  let rulesById = new Map();

  const key = () => sessionStorage.getItem(storageKey);

  const say = (text, kind) => {
    const m = $("message");
    m.textContent = text;
    m.className = kind || "";
  };

  const explain = async (response) => {
    let detail = "";
    try {
      const body = await response.json();
      detail = typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail);
    } catch (_) {}
    if (response.status === 401) return "The key was not accepted (401). Check it and sign in again.";
    if (response.status === 403) return "This key's tier cannot use alert rules (403): Pro or Enterprise is needed.";
    if (response.status === 429) return "Rate limited (429): try again in " + (response.headers.get("retry-after") || "a few") + " s.";
    return "Request failed (" + response.status + ")" + (detail ? ": " + detail : "");
  };

  const call = async (path, init) => {
    const response = await fetch(api + path, {
      ...(init || {}),
      headers: { accept: "application/json", authorization: "Bearer " + key() }
    });
    if (!response.ok) throw new Error(await explain(response));
    return response.status === 204 ? null : response.json();
  };

  const itemsOf = (body) => (Array.isArray(body) ? body : body.items);

  const cell = (row, text, code) => {
    const td = document.createElement("td");
    if (code) {
      const c = document.createElement("code");
      c.textContent = text;
      td.appendChild(c);
    } else td.textContent = text;
    row.appendChild(td);
    return td;
  };

  const badge = (status) => {
    const span = document.createElement("span");
    span.className = "status status-" + status;
    span.textContent = status;
    return span;
  };

  const when = (iso) => (iso ? new Date(iso).toLocaleString() : "—");

  const ruleLabel = (ruleId) => {
    const rule = rulesById.get(ruleId);
    return rule ? (rule.name || rule.channels.webhook_url) : ruleId;
  };

  const refire = async (delivery, button, row) => {
    button.disabled = true;
    try {
      const updated = await call("/deliveries/" + encodeURIComponent(delivery.delivery_id) + "/refire", { method: "POST" });
      row.dataset.status = updated.status;
      const statusCell = row.querySelector("td[data-field=status]");
      if (statusCell) { statusCell.textContent = ""; statusCell.appendChild(badge(updated.status)); }
      button.textContent = "Re-fired";
      say("Re-fired delivery " + delivery.delivery_id + ": it is " + updated.status + " again and will be sent within seconds.", "ok");
    } catch (error) {
      button.disabled = false;
      say(error.message, "error");
    }
  };

  const renderFailed = (deliveries) => {
    const body = $("failed-rows");
    body.textContent = "";
    $("no-failed").hidden = deliveries.length > 0;
    for (const d of deliveries) {
      const row = document.createElement("tr");
      row.dataset.deliveryId = d.delivery_id;
      row.dataset.status = d.status;
      cell(row, d.delivery_id, true);
      cell(row, ruleLabel(d.rule_id));
      cell(row, d.event);
      const status = cell(row, "");
      status.dataset.field = "status";
      status.appendChild(badge(d.status));
      cell(row, String(d.attempts));
      cell(row, d.last_error || "—");
      cell(row, when(d.created_at));
      const actions = document.createElement("td");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "refire";
      button.textContent = "Re-fire";
      button.addEventListener("click", () => refire(d, button, row));
      actions.appendChild(button);
      row.appendChild(actions);
      body.appendChild(row);
    }
  };

  const showLog = async (rule) => {
    try {
      const deliveries = itemsOf(await call("/alert-rules/" + encodeURIComponent(rule.id) + "/deliveries?limit=50"));
      $("log-rule").textContent = rule.name || rule.channels.webhook_url;
      const body = $("log-rows");
      body.textContent = "";
      for (const d of deliveries) {
        const row = document.createElement("tr");
        cell(row, d.delivery_id, true);
        cell(row, d.event);
        const status = cell(row, "");
        status.appendChild(badge(d.status));
        const attempts = (d.attempt_log || [])
          .map((a) => when(a.started_at) + ", " + a.outcome + (a.status_code === null ? "" : " " + a.status_code) + ", " + a.duration_ms + " ms")
          .join("\n");
        const log = cell(row, attempts || "not attempted yet");
        log.style.whiteSpace = "pre-line";
        cell(row, when(d.next_attempt_at));
        body.appendChild(row);
      }
      $("log").hidden = false;
    } catch (error) {
      say(error.message, "error");
    }
  };

  const renderRules = (rules) => {
    const body = $("rule-rows");
    body.textContent = "";
    $("no-rules").hidden = rules.length > 0;
    for (const rule of rules) {
      const row = document.createElement("tr");
      cell(row, rule.name || rule.id);
      cell(row, rule.channels.webhook_url, true);
      const watches = [
        rule.entity_types.length ? rule.entity_types.join(", ") : "all types",
        rule.slugs.length ? rule.slugs.join(", ") : "all entities",
        rule.events.length ? rule.events.join(", ") : "all events"
      ].join(" · ");
      cell(row, watches);
      cell(row, when(rule.created_at));
      const actions = document.createElement("td");
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = "Delivery log";
      button.addEventListener("click", () => showLog(rule));
      actions.appendChild(button);
      row.appendChild(actions);
      body.appendChild(row);
    }
  };

  const load = async () => {
    if (!key()) return;
    say("Loading…");
    try {
      const rules = itemsOf(await call("/alert-rules"));
      rulesById = new Map(rules.map((r) => [r.id, r]));
      const failed = itemsOf(await call("/deliveries?status=failed"));
      renderRules(rules);
      renderFailed(failed);
      $("watchlist").hidden = false;
      $("rules").hidden = false;
      say(failed.length === 0 ? "Nothing has failed." : failed.length + " failed " + (failed.length === 1 ? "delivery" : "deliveries") + ".", failed.length === 0 ? "ok" : "");
    } catch (error) {
      say(error.message, "error");
    }
  };

  const showSession = () => {
    const signedIn = Boolean(key());
    $("signin").hidden = signedIn;
    $("session").hidden = !signedIn;
    if (signedIn) $("key-hint").textContent = key().slice(0, 8) + "…";
    else for (const id of ["watchlist", "rules", "log"]) $(id).hidden = true;
  };

  $("signin").addEventListener("submit", (event) => {
    event.preventDefault();
    const value = $("key").value.trim();
    if (!value) return;
    sessionStorage.setItem(storageKey, value);
    $("key").value = "";
    showSession();
    load();
  });
  $("signout").addEventListener("click", () => {
    sessionStorage.removeItem(storageKey);
    say("Signed out.");
    showSession();
  });
  $("refresh").addEventListener("click", load);
  setInterval(() => { if (key() && document.visibilityState === "visible") load(); }, 30000);

  // Post-quantum readiness: public, shown with or without a key.
  const notAssessed = ${JSON.stringify(NotAssessed)};
  const figure = (value, label) =>
    value === null || value === undefined ? notAssessed : label ? value + " (" + label + ")" : String(value);

  const loadQuantum = async () => {
    const note = $("quantum-note");
    try {
      const response = await fetch(api + "/quantum-readiness", { headers: { accept: "application/json" } });
      if (!response.ok) throw new Error(await explain(response));
      const table = await response.json();
      const body = $("quantum-rows");
      body.textContent = "";
      if (!table.available) {
        note.textContent = "Not available: " + table.reason + ". " + table.attribution;
        return;
      }
      for (const r of table.rows) {
        const row = document.createElement("tr");
        row.dataset.slug = r.slug;
        const assessed = r.qri !== null && r.band !== null && r.stage !== null;
        if (!assessed) row.className = "not-assessed";
        cell(row, r.name);
        cell(row, r.profile);
        cell(row, figure(r.qri));
        cell(row, figure(r.band, r.band_label));
        cell(row, figure(r.stage));
        cell(row, r.hybrid);
        body.appendChild(row);
      }
      note.textContent =
        table.attribution + " As of " + when(table.as_of) + (table.stale ? " (stale: the last refresh failed)." : ".");
    } catch (error) {
      note.textContent = error.message;
    }
  };

  showSession();
  load();
  loadQuantum();
})();
`
