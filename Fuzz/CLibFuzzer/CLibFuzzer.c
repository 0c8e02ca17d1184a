// Header-only module: this file exists because SwiftPM C targets need one source file.
#include "CLibFuzzer.h"
