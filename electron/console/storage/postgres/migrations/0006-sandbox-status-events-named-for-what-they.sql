-- Migration 6: sandbox status events named for what they are
UPDATE timeline SET type = 'sandbox_status' WHERE type = 'webhook_received';