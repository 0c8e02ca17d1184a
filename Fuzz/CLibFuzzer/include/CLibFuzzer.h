// libFuzzer's driver entry point (compiler-rt FuzzerInterface.h / FuzzerDriver.cpp), linked in by
// `-sanitize=fuzzer`. Swift fuzz targets call it from their own entry point because SwiftPM renames an executable's
// `main` to `<Target>_main` and defines `main` as that symbol at link time, so libFuzzer's own `main` is not used.
#pragma once
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));
