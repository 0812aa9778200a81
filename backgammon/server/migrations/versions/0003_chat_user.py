"""Chat lines remember the account that said them (``chat.user``; NULL for a guest), so
mute, block and report work on older lines too.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Add ``chat.user``."""
    with op.batch_alter_table("chat") as batch:
        batch.add_column(sa.Column("user", sa.Text, nullable=True))


def downgrade() -> None:
    """Drop ``chat.user``."""
    with op.batch_alter_table("chat") as batch:
        batch.drop_column("user")
