// The Swift runtime's hook for its global executor (swift/Runtime/Concurrency.h, exported by
// libswift_Concurrency since Swift 5.5): when set, every job meant for the global executor goes
// to it. Swift cannot name a C global of the runtime's own, and the app links the runtime
// statically, where dlsym does not find it; declared here, the linker does. Its real type is a
// swiftcall function pointer, `void (*)(Job *, original)`; the Workers module stores one of the
// same convention (`@convention(thin)`), so a plain pointer is all this side needs.
#pragma once

extern void *swift_task_enqueueGlobal_hook;

// Its address: Swift 6 refuses to touch a C global directly (shared mutable state); it is set
// once, on the main thread, before any task starts.
static inline void **vt_enqueue_global_hook(void) { return &swift_task_enqueueGlobal_hook; }
