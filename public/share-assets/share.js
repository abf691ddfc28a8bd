// The share page's script (served by worker/pages/share.ts under a CSP that allows only this
// origin). It reads the link's token from the address, asks for the password, keeps the view
// token in memory only, and writes every value with textContent (never as HTML).
"use strict";

(function () {
  const token = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
  const api = (suffix) => `/api/public/shares/${encodeURIComponent(token)}${suffix}`;
  const $ = (id) => document.getElementById(id);
  const show = (el, visible = true) => {
    el.hidden = !visible;
  };

  function setStatus(text, kind) {
    const status = $("status");
    status.textContent = text || "";
    status.className = kind || "";
    show(status, Boolean(text));
  }

  /** Says why the link does not open, and hides everything else; true when it does not. */
  function closedBecause(meta) {
    let reason = null;
    if (!meta.exists) reason = "This link is not valid. Check that you have the whole address.";
    else if (meta.revoked) reason = "This link has been revoked by its sender and no longer opens.";
    else if (meta.expired) reason = "This link has expired. Ask its sender for a new one.";
    if (!reason) return false;
    setStatus(reason, "error closed");
    show($("unlock"), false);
    show($("call"), false);
    return true;
  }

  async function fetchMeta() {
    const res = await fetch(api("/meta"), { headers: { Accept: "application/json" } });
    return res.json();
  }

  async function start() {
    let meta;
    try {
      meta = await fetchMeta();
    } catch {
      setStatus("The link could not be checked. Reload the page to try again.", "error");
      return;
    }
    if (closedBecause(meta)) return;
    if (meta.company_name) {
      $("shared-by").textContent = `Shared by ${meta.company_name}`;
      show($("shared-by"));
    }
    setStatus("");
    show($("unlock"));
    $("password").focus();
  }

  function unlockError(text) {
    const error = $("unlock-error");
    error.textContent = text;
    show(error, Boolean(text));
  }

  async function unlock(event) {
    event.preventDefault();
    const button = $("unlock").querySelector("button");
    button.disabled = true;
    unlockError("");
    try {
      const res = await fetch(api("/unlock"), {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ password: $("password").value }),
      });
      if (res.status === 200) {
        const { view_token: viewToken } = await res.json();
        $("password").value = "";
        await load(viewToken);
        return;
      }
      if (res.status === 429) {
        const wait = Number(res.headers.get("Retry-After")) || 60;
        unlockError(`Too many attempts. Try again in ${Math.ceil(wait / 60)} minute${wait > 60 ? "s" : ""}.`);
        return;
      }
      // A wrong password, or a link that closed meanwhile: meta tells which.
      if (closedBecause(await fetchMeta())) return;
      unlockError("Wrong password. Check it and try again.");
      $("password").select();
    } catch {
      unlockError("The link could not be opened. Check your connection and try again.");
    } finally {
      button.disabled = false;
    }
  }

  async function load(viewToken) {
    const res = await fetch(api(""), { headers: { "X-Share-Token": viewToken, Accept: "application/json" } });
    if (res.status === 404) {
      if (!closedBecause(await fetchMeta())) setStatus("This link is no longer available.", "error closed");
      return;
    }
    if (res.status !== 200) {
      unlockError("Your access has ended. Enter the password again.");
      show($("unlock"));
      return;
    }
    render(await res.json(), viewToken);
  }

  function text(id, value, prefix = "") {
    const el = $(id);
    el.textContent = value ? `${prefix}${value}` : "";
    show(el, Boolean(value));
  }

  function fact(list, term, value) {
    if (value === null || value === undefined || value === "") return;
    const dt = document.createElement("dt");
    dt.textContent = term;
    const dd = document.createElement("dd");
    dd.textContent = String(value);
    list.append(dt, dd);
  }

  const clock = (seconds) => {
    const s = Math.max(0, Math.floor(Number(seconds) || 0));
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  };

  function renderTranscript(transcript) {
    const box = $("transcript");
    box.replaceChildren();
    const segments = Array.isArray(transcript.segments) ? transcript.segments.filter((s) => s && typeof s.text === "string") : [];
    if (segments.length) {
      for (const segment of segments) {
        const line = document.createElement("p");
        line.className = "segment";
        const when = document.createElement("span");
        when.className = "time";
        when.textContent = clock(segment.start);
        const who = document.createElement("span");
        who.className = "speaker";
        who.textContent = typeof segment.speaker === "string" ? segment.speaker : "";
        const said = document.createElement("span");
        said.className = "said";
        said.textContent = segment.text;
        line.append(when, who, said);
        box.append(line);
      }
    } else {
      const line = document.createElement("p");
      line.textContent = transcript.text || "(no speech was transcribed)";
      box.append(line);
    }
    show($("transcript-section"));
  }

  function render(payload, viewToken) {
    setStatus("");
    show($("unlock"), false);
    if (payload.shared_by) {
      $("shared-by").textContent = `Shared by ${payload.shared_by}` + (payload.label ? ` · ${payload.label}` : "");
      show($("shared-by"));
    }

    const analysis = payload.analysis;
    show($("verdict"), Boolean(analysis));
    show($("no-verdict"), !analysis);
    if (analysis) {
      $("probability").textContent = String(analysis.probability ?? "–");
      $("verdict").className = analysis.probability >= 70 ? "high" : analysis.probability >= 30 ? "medium" : "low";
      text("category", (analysis.category || "").replace(/_/g, " "));
      text("recommendation", analysis.recommendation, "Recommendation: ");
      text("verdict-title", analysis.title);
      text("entity", analysis.entity, "Caller claimed to be: ");
      text("summary", analysis.summary);
      text("tcpa", analysis.tcpa_comment, "Compliance: ");
      const flags = $("red-flags");
      flags.replaceChildren();
      for (const flag of analysis.red_flags || []) {
        const item = document.createElement("li");
        item.textContent = flag;
        flags.append(item);
      }
      show($("flags-section"), flags.children.length > 0);
    }

    const facts = $("facts");
    facts.replaceChildren();
    const call = payload.call || {};
    fact(facts, "From", call.ani);
    fact(facts, "To", call.dialed);
    fact(facts, "Direction", call.direction);
    fact(facts, "Started", call.started_at ? new Date(call.started_at).toUTCString() : null);
    fact(facts, "Duration", call.duration_sec === null || call.duration_sec === undefined ? null : clock(call.duration_sec));
    fact(facts, "Link expires", payload.expires_at ? new Date(payload.expires_at).toUTCString() : "never");

    if (payload.transcript) renderTranscript(payload.transcript);
    else show($("transcript-section"), false);

    if (payload.has_recording) {
      $("audio").src = api(`/recording?t=${encodeURIComponent(viewToken)}`);
      show($("recording-section"));
    }
    show($("call"));
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("unlock").addEventListener("submit", unlock);
    start();
  });
})();
