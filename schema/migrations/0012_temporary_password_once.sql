ALTER TABLE `users` ADD `temporary_password_expires_at` text;--> statement-breakpoint
ALTER TABLE `users` ADD `temporary_password_used_at` text;