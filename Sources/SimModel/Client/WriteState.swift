import SimKernel

/// One write, as the world remembers it: the store that made it, the write it replaced there, and
/// its value. One 12-byte value per write rather than three columns: a commit's lost-update check
/// reads a write's store and what it was based on together, and a new write appends once.
struct WriteState: BitwiseCopyable {
  var store: StoreID
  var basedOn: WriteID
  var value: Int32
}
