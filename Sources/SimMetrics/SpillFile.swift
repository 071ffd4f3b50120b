import SimModel

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A temporary file that takes a `ByteStreams`' full blocks (`BlockSpill`): the page log of a
/// million-install day, 0.7 GB written once and read once when the run ends, leaves memory.
///
/// The file is removed from its folder as soon as it is made, so nothing is left behind however
/// the process ends; it lives in `TMPDIR` (else `/tmp`). Reading maps it: the kernel's page cache
/// holds it, and can drop it under pressure, where the process's own memory could not be.
final class SpillFile: BlockSpill {
  /// The file, made at the first write (a fleet's parts each have a log, and most never spill);
  /// −1 before, −2 when it could not be made.
  private var descriptor: Int32 = -1
  private var mapping: UnsafeMutableRawPointer?
  private var mappedBytes = 0

  deinit {
    if let mapping { munmap(mapping, mappedBytes) }
    if descriptor >= 0 { close(descriptor) }
  }

  /// Makes the file, already unlinked; false when it cannot be made.
  private func open() -> Bool {
    guard descriptor == -1 else { return descriptor >= 0 }
    let folder = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    var template = Array((folder + "/syncsim-pagelog-XXXXXX").utf8CString)
    descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard descriptor >= 0 else {
      descriptor = -2
      return false
    }
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    return true
  }

  func write(_ block: UnsafeRawPointer, index: Int) -> Bool {
    guard open() else { return false }
    var done = 0
    while done < ByteStreams.blockBytes {
      let written = pwrite(
        descriptor, block + done, ByteStreams.blockBytes - done, off_t(index * ByteStreams.blockBytes + done))
      if written < 0 && errno == EINTR { continue }
      guard written > 0 else { return false }
      done += written
    }
    return true
  }

  func map(blocks count: Int) -> UnsafeRawPointer? {
    if let mapping { munmap(mapping, mappedBytes) }
    mapping = nil
    mappedBytes = count * ByteStreams.blockBytes
    guard mappedBytes > 0, descriptor >= 0 else { return nil }
    let address = mmap(nil, mappedBytes, PROT_READ, MAP_PRIVATE, descriptor, 0)
    guard let address, address != MAP_FAILED else { return nil }
    mapping = address
    return UnsafeRawPointer(address)
  }
}
