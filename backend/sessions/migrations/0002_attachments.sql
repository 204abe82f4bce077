-- 0002: a user message's attachments in the model history (a JSON array of
-- Attachment; '' for none). Their content lives in the blob store beside
-- the database, never in a table.
ALTER TABLE model_messages ADD COLUMN attachments TEXT NOT NULL DEFAULT '';
