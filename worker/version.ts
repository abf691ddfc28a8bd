import pkg from "../package.json" with { type: "json" };

/** The product version, from package.json; also the OpenAPI info.version. */
export const VERSION: string = pkg.version;
