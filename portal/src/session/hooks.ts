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
