"""The club: accounts, sessions, login attempts, seats held by accounts, results, relations
(mute, block), reports, the moderation log; ``tables.due`` (when a server must act by itself).

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Add the club's tables and ``tables.due``."""
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("due", sa.DateTime(timezone=True), nullable=True))
        batch.create_index("ix_tables_due", ["due"])
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("name_key", sa.String(32), nullable=False, unique=True),
        sa.Column("password", sa.Text, nullable=True),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("experience", sa.Integer, nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("banned_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ban_reason", sa.Text, nullable=True),
    )
    op.create_index("ix_users_rating", "users", ["rating"])
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("csrf", sa.String(64), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_sessions_user_id", "sessions", ["user_id"])
    op.create_table(
        "login_attempts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("key", sa.String(128), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ok", sa.Boolean, nullable=False),
    )
    op.create_index("ix_login_attempts_key_at", "login_attempts", ["key", "at"])
    op.create_table(
        "seat_users",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Text, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    )
    op.create_index("ix_seat_users_user_id", "seat_users", ["user_id"])
    op.create_table(
        "results",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("length", sa.Integer, nullable=False),
        sa.Column("winner_seat", sa.Text, nullable=False),
        sa.Column("loser_seat", sa.Text, nullable=False),
        sa.Column("winner_id", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("loser_id", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("score", sa.JSON, nullable=False),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("ratings", sa.JSON(none_as_null=True), nullable=True),
        sa.Column("finished", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_results_winner_id", "results", ["winner_id"])
    op.create_index("ix_results_loser_id", "results", ["loser_id"])
    op.create_index("ix_results_finished", "results", ["finished"])
    op.create_table(
        "relations",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("other_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("kind", sa.String(8), primary_key=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("reporter_id", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("reporter", sa.Text, nullable=False),
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("target", sa.Text, nullable=False),
        sa.Column("target_id", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("chat", sa.JSON, nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("handled_by", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("resolution", sa.Text, nullable=True),
    )
    op.create_index("ix_reports_status", "reports", ["status", "id"])
    op.create_table(
        "moderation_log",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("moderator_id", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("target_id", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("table_id", sa.String(32), nullable=True),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    """Drop the club's tables and ``tables.due``."""
    for name in ("moderation_log", "reports", "relations", "results", "seat_users", "login_attempts",
                 "sessions", "users"):
        op.drop_table(name)
    with op.batch_alter_table("tables") as batch:
        batch.drop_index("ix_tables_due")
        batch.drop_column("due")
