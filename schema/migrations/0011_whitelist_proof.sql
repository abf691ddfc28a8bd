ALTER TABLE `whitelist_ips` ADD `proof` text DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE `whitelist_ips` ADD `proof_nonce` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `whitelist_ips` ADD `proven_at` text;--> statement-breakpoint
ALTER TABLE `whitelist_ips` ADD `standing` text DEFAULT 'first' NOT NULL;