"""Who may do what: object permissions and account rule sets."""
