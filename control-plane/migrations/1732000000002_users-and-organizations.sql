-- Up Migration
-- A user is a login (e-mail and password); an account is what holds a
-- balance, keys and jobs. Every user has a personal account; an
-- organization has an account of its own that its members act on when they
-- send X-Organization-Id.
CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL,
  password_hash text,
  role text NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'admin')),
  account_id uuid NOT NULL UNIQUE REFERENCES accounts(id),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_idx ON users (lower(email));

CREATE TABLE organizations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL,
  account_id uuid NOT NULL UNIQUE REFERENCES accounts(id),
  created_by uuid REFERENCES users(id),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE organization_members (
  organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organization_id, user_id)
);
CREATE INDEX organization_members_user_idx ON organization_members (user_id);

ALTER TABLE api_keys ADD COLUMN created_by_user_id uuid REFERENCES users(id);

-- Down Migration
ALTER TABLE api_keys DROP COLUMN created_by_user_id;
DROP TABLE organization_members;
DROP TABLE organizations;
DROP TABLE users;
