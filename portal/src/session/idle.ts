// The idle timeout of /auth/config (session_idle_timeout_min; 0 means none): no key, pointer or
// scroll for that long signs this browser out, as an unattended fraud desk should be.
import { session } from "./session.ts";

const ACTIVITY = ["pointerdown", "keydown", "scroll", "pointermove"] as const;

export function watchIdle(minutes: number): () => void {
  if (!minutes || minutes <= 0) return () => undefined;
  let last = Date.now();
  const touch = () => (last = Date.now());
  for (const kind of ACTIVITY) window.addEventListener(kind, touch, { passive: true });
  const timer = setInterval(() => {
    if (Date.now() - last >= minutes * 60_000) void session.signOut("You were signed out after a time without activity.");
  }, 15_000);
  return () => {
    clearInterval(timer);
    for (const kind of ACTIVITY) window.removeEventListener(kind, touch);
  };
}
