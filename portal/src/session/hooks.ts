// React's view of the session and of the signed-in account (GET /auth/me).
import { useQuery } from "@tanstack/react-query";
import { useSyncExternalStore } from "react";
import { api, must } from "../api/client.ts";
import { session } from "./session.ts";

export const useSession = () => useSyncExternalStore(session.subscribe, session.current);

export function useMe() {
  return useQuery({ queryKey: ["me"], queryFn: () => must(api.GET("/auth/me")), staleTime: 60_000 });
}

export function useAuthConfig() {
  return useQuery({ queryKey: ["auth-config"], queryFn: () => must(api.GET("/auth/config")), staleTime: Infinity });
}

/**
 * What the signed-in person may do: owner-only actions are not offered to a member, and actions an
 * administrator acting as the account may not take (credentials, passwords, passkeys) are marked.
 */
export function usePermissions() {
  const me = useMe();
  const role = me.data?.role;
  return {
    owner: role === "owner" || role === "admin",
    impersonating: Boolean(me.data?.impersonated_by),
  };
}
