// The account's destinations, read by several pages (trunk, routing, automation's diverts, test
// calls, the calls filter) under one cache key, so a change made on one page shows on the others.
import { useQuery } from "@tanstack/react-query";
import { api, must, type Schemas } from "./client.ts";

export type Destination = Schemas["Destination"];

export const destinationsKey = ["destinations"] as const;

export const useDestinations = () => useQuery({ queryKey: destinationsKey, queryFn: () => must(api.GET("/customer/destinations")) });

/** A destination as people know it: its label, else where it is. */
export const destinationName = (d: Pick<Destination, "label" | "host" | "port">) => d.label || `${d.host}:${d.port}`;
