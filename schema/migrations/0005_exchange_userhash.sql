ALTER TABLE `exchange_accounts` ADD `userhash_sha256` text;--> statement-breakpoint
ALTER TABLE `exchange_accounts` ADD `userhash_md5` text;--> statement-breakpoint
CREATE INDEX `exchange_accounts_userhash_sha256_idx` ON `exchange_accounts` (`userhash_sha256`);--> statement-breakpoint
CREATE INDEX `exchange_accounts_userhash_md5_idx` ON `exchange_accounts` (`userhash_md5`);