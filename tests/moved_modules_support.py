"""The commit the recorded-state tests take the flat layout's code from."""

# The last commit whose providers/ was one flat folder of modules (before the domain
# packages): states it recorded name `providers.job`, `providers.kind.provider_in`, ...
FLAT_LAYOUT = "4f14043854fb5aefdb498b1dd0dd9f062efd7d85"
