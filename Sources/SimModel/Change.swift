import SimKernel

/// One change recorded in a store's persistent history (or still unsaved in its context).
struct Change: BitwiseCopyable, Hashable {
  var object: ObjectID
  var field: Int32
  var write: WriteID
}
