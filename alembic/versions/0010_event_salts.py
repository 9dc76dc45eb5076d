"""Event salts: a live row's random salt, hashed before its payload.

A spectator of a live match gets a hidden draw's row without its tile, but with its
hash; an unkeyed hash over public fields and the payload let them try the 28 tiles and
find it. Rows appended live from now on carry 16 random bytes hashed before the payload
(``ledger.store.log.hashing.event_hash``) and published only with the payload. Rows stored
before keep their hash and its form (no salt, NULL here): every ledger keeps verifying.

Going below this revision would lose salts a chain needs, so it is refused while any
row holds one.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("events", sa.Column("salt", sa.LargeBinary(16), nullable=True))


def downgrade() -> None:
    salted = op.get_bind().execute(
        sa.text("SELECT count(*) FROM events WHERE salt IS NOT NULL")).scalar_one()
    if salted:
        raise RuntimeError(f"{salted} event rows hold a salt their hash needs; going below "
                           "revision 0010 would break their chains")
    op.drop_column("events", "salt")
