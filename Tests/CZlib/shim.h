// zlib, for the tests alone: they decode the PNG screenshots a browser takes of the report page.
#ifndef TIPLEDGER_CZLIB_SHIM_H
#define TIPLEDGER_CZLIB_SHIM_H

#include <zlib.h>

#endif
