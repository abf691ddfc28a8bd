// The web dialer's script (served by worker/pages/dialer.ts under a CSP that allows only this
// origin and the SIP node's WebSocket). It signs in, or takes the portal's access token from the
// address's fragment (#access_token=...), which it removes from the address at once and keeps in
// memory only. Each call gets its own single-use token (POST /api/customer/dialer/session) sent as
// X-Dialer-Token on the INVITE; JsSIP (window.JsSIP, our bundled copy) carries the call over the
// node's WebSocket listener. Values are written with textContent, never as HTML.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const show = (el, visible = true) => {
    el.hidden = !visible;
  };
  const TOKEN_HEADER = "X-Dialer-Token";
  const CALL_ID_HEADER = "X-Call-Id";

  let accessToken = null;
  let ua = null;
  let uaUrl = null;
  let session = null;
  let callId = null;
  let answeredAt = null;
  let timer = null;

  function setStatus(text, kind) {
    const status = $("status");
    status.textContent = text || "";
    status.className = kind || "";
    status.dataset.state = kind || "";
    show(status, Boolean(text));
  }

  async function api(path, init = {}) {
    const headers = { Accept: "application/json", ...(init.body ? { "Content-Type": "application/json" } : {}) };
    if (accessToken) headers.Authorization = `Bearer ${accessToken}`;
    const res = await fetch(`/api${path}`, { method: init.method || "GET", headers, body: init.body ? JSON.stringify(init.body) : undefined });
    const text = await res.text();
    let body = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = null;
    }
    return { status: res.status, body };
  }

  const detailOf = (body) => (body && typeof body.detail === "string" ? body.detail : "");

  async function start() {
    const fragment = new URLSearchParams(location.hash.slice(1));
    if (fragment.get("access_token")) {
      accessToken = fragment.get("access_token");
      history.replaceState(null, "", location.pathname + location.search);
    }
    if (accessToken && (await whoAmI())) return ready();
    accessToken = null;
    setStatus("");
    show($("sign-in"));
    $("email").focus();
  }

  async function whoAmI() {
    const me = await api("/auth/me");
    if (me.status !== 200) return false;
    $("who").textContent = `${me.body.email}${me.body.company ? ` · ${me.body.company}` : ""}`;
    show($("who"));
    return true;
  }

  async function signIn(event) {
    event.preventDefault();
    const error = $("sign-in-error");
    show(error, false);
    const res = await api("/auth/login", { method: "POST", body: { email: $("email").value, password: $("password").value } });
    if (res.status === 200 && res.body && res.body.access_token) {
      accessToken = res.body.access_token;
      $("password").value = "";
      show($("sign-in"), false);
      await whoAmI();
      return ready();
    }
    error.textContent =
      res.status === 200
        ? "This account signs in with a passkey: open the dialer from the portal."
        : detailOf(res.body) || "Signing in failed.";
    show(error);
  }

  /** The account's verified numbers, offered as the call's caller ID (none: the call is anonymous). */
  async function loadCallerIds() {
    const res = await api("/customer/verified-numbers");
    if (res.status !== 200) return;
    const numbers = (Array.isArray(res.body) ? res.body : (res.body && res.body.items) || []).filter((n) => n.verified);
    const select = $("caller-id");
    select.replaceChildren(new Option("Anonymous", ""));
    for (const n of numbers) select.append(new Option(n.label ? `${n.number} · ${n.label}` : n.number, n.number));
    show($("caller-id-row"), numbers.length > 0);
  }

  function ready() {
    void loadCallerIds();
    show($("dialer"));
    setStatus("Ready", "ready");
    $("number").focus();
  }

  function press(key) {
    if (session && session.isEstablished()) {
      // RFC 4733 events in the media stream (RTCDTMFSender), not SIP INFO.
      session.sendDTMF(key, { transportType: "RFC2833", duration: 160, interToneGap: 80 });
      setStatus(`In call · sent ${key}`, "in-call");
      return;
    }
    $("number").value += key;
  }

  /** The dialled number as the destination gets it: digits, * and #, a leading + kept. */
  const dialable = (text) => text.trim().replace(/[^\d*#+]/g, "").replace(/(?!^)\+/g, "");

  function userAgentFor(dialer) {
    if (ua && uaUrl === dialer.websocket_url) return ua;
    if (ua) ua.stop();
    const socket = new window.JsSIP.WebSocketInterface(dialer.websocket_url);
    ua = new window.JsSIP.UA({
      sockets: [socket],
      uri: `sip:web-dialer@${dialer.sip_domain}`,
      display_name: "Web dialer",
      register: false,
      session_timers: false,
      user_agent: "call-shield web dialer",
    });
    uaUrl = dialer.websocket_url;
    ua.start();
    return ua;
  }

  async function call() {
    const number = dialable($("number").value);
    if (!number) return setStatus("Enter a number to call.", "error");
    if (!window.JsSIP) return setStatus("The SIP library did not load; reload the page.", "error");
    setControls("calling");
    setStatus("Preparing the call…", "calling");
    const callerId = $("caller-id").value;
    const minted = await api("/customer/dialer/session", { method: "POST", body: callerId ? { caller_id: callerId } : {} });
    if (minted.status === 401) {
      // The portal's access token lapsed (15 minutes): sign in here.
      setControls("idle");
      accessToken = null;
      show($("dialer"), false);
      show($("sign-in"));
      return setStatus("Your session has ended: sign in again.", "error");
    }
    if (minted.status !== 200) {
      setControls("idle");
      const why = detailOf(minted.body);
      return setStatus(why === "dialer_disabled" ? "The web dialer is not enabled for this account." : `No dialer token: ${why || minted.status}`, "error");
    }
    const dialer = minted.body;
    callId = null;
    answeredAt = null;
    show($("record"), false);
    const agent = userAgentFor(dialer);
    const host = dialer.sip_domain.includes(":") ? `[${dialer.sip_domain}]` : dialer.sip_domain;
    setStatus("Calling…", "calling");
    try {
      session = placeCall(agent, number, host, dialer.token);
    } catch (err) {
      setControls("idle");
      return setStatus(`The call could not start: ${err && err.message ? err.message : err}`, "error");
    }
    session.connection.addEventListener("track", (event) => {
      $("remote").srcObject = event.streams[0] || new MediaStream([event.track]);
    });
  }

  function placeCall(agent, number, host, token) {
    return agent.call(`sip:${number}@${host}`, {
      extraHeaders: [`${TOKEN_HEADER}: ${token}`],
      mediaConstraints: { audio: true, video: false },
      pcConfig: { iceServers: [] },
      rtcOfferConstraints: { offerToReceiveAudio: true, offerToReceiveVideo: false },
      eventHandlers: {
        progress: (e) => {
          noteCallId(e.response);
          setStatus("Ringing…", "ringing");
        },
        accepted: (e) => noteCallId(e.response),
        confirmed: () => {
          answeredAt = Date.now();
          timer = setInterval(tick, 250);
          setControls("in-call");
          setStatus("In call", "in-call");
        },
        ended: (e) => finished(`Call ended (${e.originator === "local" ? "you hung up" : "the other side hung up"})`, "ended"),
        failed: (e) => {
          const code = e.message && e.message.status_code;
          finished(`Call failed: ${e.cause}${code ? ` (${code})` : ""}`, "failed");
        },
      },
    });
  }

  /** The call's id the node puts on its responses: shown, and its record fetched after the call. */
  function noteCallId(response) {
    const id = response && response.getHeader(CALL_ID_HEADER);
    if (!id || callId) return;
    callId = id;
    const link = $("call-id");
    link.textContent = id;
    link.href = "#record";
    link.dataset.callId = id;
    show($("call-id-label"));
  }

  function tick() {
    const seconds = answeredAt ? Math.floor((Date.now() - answeredAt) / 1000) : 0;
    $("timer").textContent = `${String(Math.floor(seconds / 60)).padStart(2, "0")}:${String(seconds % 60).padStart(2, "0")}`;
  }

  function finished(text, kind) {
    clearInterval(timer);
    timer = null;
    session = null;
    setControls("idle");
    setStatus(text, kind);
    if (callId) void showRecord(callId);
  }

  /** The call's record as the API has it once its end is in (charges included). */
  async function showRecord(id) {
    for (let attempt = 0; attempt < 20; attempt++) {
      const res = await api(`/calls/${encodeURIComponent(id)}`);
      if (res.status === 200 && res.body && !["ringing", "active"].includes(res.body.status)) return renderRecord(res.body);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  function renderRecord(record) {
    const facts = $("record-facts");
    facts.replaceChildren();
    const rows = [
      ["Call", record.id],
      ["Origin", record.origin],
      ["Status", record.status],
      ["Number", record.dialed],
      ["Duration", record.duration_sec === null ? "—" : `${record.duration_sec} s`],
      ["Billed", record.billsec === null ? "—" : `${record.billsec} s`],
      ["Charged", `US$${Number(record.charged_amount).toFixed(4)}`],
    ];
    for (const [name, value] of rows) {
      const dt = document.createElement("dt");
      dt.textContent = name;
      const dd = document.createElement("dd");
      dd.textContent = value === null || value === undefined ? "—" : String(value);
      dd.dataset.field = name.toLowerCase();
      facts.append(dt, dd);
    }
    show($("record"));
  }

  function setControls(state) {
    const busy = state !== "idle";
    $("call").disabled = busy;
    $("hangup").disabled = !busy;
    $("mute").disabled = state !== "in-call";
    if (!busy) {
      $("mute").textContent = "Mute";
      $("mute").setAttribute("aria-pressed", "false");
    }
  }

  function hangUp() {
    if (session) session.terminate();
  }

  function toggleMute() {
    if (!session || !session.isEstablished()) return;
    const muted = session.isMuted().audio;
    if (muted) session.unmute({ audio: true });
    else session.mute({ audio: true });
    $("mute").textContent = muted ? "Mute" : "Unmute";
    $("mute").setAttribute("aria-pressed", String(!muted));
    setStatus(muted ? "In call" : "In call · muted", "in-call");
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("sign-in").addEventListener("submit", (event) => void signIn(event));
    $("pad").addEventListener("click", (event) => {
      const key = event.target instanceof HTMLElement ? event.target.dataset.key : undefined;
      if (key) press(key);
    });
    $("call").addEventListener("click", () => void call());
    $("hangup").addEventListener("click", hangUp);
    $("mute").addEventListener("click", toggleMute);
    $("number").addEventListener("keydown", (event) => {
      if (event.key === "Enter") void call();
    });
    void start();
  });
})();
