"""The app's routers: one module per area, each included by web.app."""
