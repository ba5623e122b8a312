/* MUSTER_API marks the functions libmuster exports: its shared library is
 * built with hidden visibility, and these (listed again in its version
 * script, src/libmuster.map) are the only names it gives the program. */
#ifndef MUSTER_EXPORT_H
#define MUSTER_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define MUSTER_API __attribute__((visibility("default")))
#else
#define MUSTER_API
#endif

#endif
