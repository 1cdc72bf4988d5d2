{
  "targets": [
    {
      "target_name": "nexus_splice",
      "sources": ["src/splice.c"],
      "cflags": ["-O2", "-Wall", "-Wextra"],
      "conditions": [["OS!='linux'", {"sources!": ["src/splice.c"], "sources": ["src/unsupported.c"]}]]
    }
  ]
}
