"""Integrations with other systems (Ray Data...): each module imports its system lazily."""
