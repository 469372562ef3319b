// The Arrow C data interface and C stream interface (ArrowSchema, ArrowArray, ArrowArrayStream): the ABI through
// which DuckDB scans data a program produces (duckdb_arrow_scan), used by the rows.parquet writer (SPEC §1.7).
// The Arrow specification asks producers and consumers to declare these structs themselves, under these guards, so
// that two declarations in one program agree (arrow.apache.org/docs/format/CDataInterface.html, CStreamInterface.html).
#pragma once

#include <cstdint>

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

extern "C" {
/// A type: `format` is the type code ("i" int32, "+l" list with int32 offsets, "+s" struct), `children` its fields.
struct ArrowSchema {
  const char* format;
  const char* name;
  const char* metadata;
  std::int64_t flags;
  std::int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;
  void (*release)(struct ArrowSchema*);  ///< frees the schema and its children; sets release to nullptr
  void* private_data;
};

/// Values: `length` entries over `buffers` (validity first; offsets and data as the type says) and `children`.
struct ArrowArray {
  std::int64_t length;
  std::int64_t null_count;
  std::int64_t offset;
  std::int64_t n_buffers;
  std::int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;
  void (*release)(struct ArrowArray*);  ///< frees the array and its children; sets release to nullptr
  void* private_data;
};
}
#endif  // ARROW_C_DATA_INTERFACE

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE
extern "C" {
/// A sequence of arrays of one schema. get_next sets out->release to nullptr at the end of the stream; a non-zero
/// return is an errno-style error whose text get_last_error gives.
struct ArrowArrayStream {
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
  const char* (*get_last_error)(struct ArrowArrayStream*);
  void (*release)(struct ArrowArrayStream*);
  void* private_data;
};
}
#endif  // ARROW_C_STREAM_INTERFACE
