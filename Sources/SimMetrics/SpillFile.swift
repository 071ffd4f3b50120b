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
  private let folder: String
  private var mapping: UnsafeMutableRawPointer?
  private var mappedBytes = 0
  /// Whether `mapping` was read into memory (the file could not be mapped), not mapped.
  private var mappingIsCopy = false

  /// A spill into `folder`, else `TMPDIR`, else `/tmp`.
  init(folder: String? = nil) {
    self.folder =
      folder ?? getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
  }

  deinit {
    release()
    if descriptor >= 0 { close(descriptor) }
  }

  /// Unmaps (or frees) what `map` returned last.
  private func release() {
    guard let mapping else { return }
    if mappingIsCopy { mapping.deallocate() } else { munmap(mapping, mappedBytes) }
    self.mapping = nil
  }

  /// Makes the file, already unlinked; false when it cannot be made.
  private func open() -> Bool {
    guard descriptor == -1 else { return descriptor >= 0 }
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
    let start = index * ByteStreams.blockBytes
    return Self.transferAll(ByteStreams.blockBytes) { done in
      pwrite(descriptor, block + done, ByteStreams.blockBytes - done, off_t(start + done))
    }
  }

  /// Calls `step` with the bytes done so far until all `count` are, retrying short and interrupted
  /// transfers (`step` returns what `pwrite` or `pread` does); false on an error or end of file.
  private static func transferAll(_ count: Int, _ step: (Int) -> Int) -> Bool {
    var done = 0
    while done < count {
      let result = step(done)
      if result < 0 && errno == EINTR { continue }
      guard result > 0 else { return false }
      done += result
    }
    return true
  }

  func map(blocks count: Int) -> UnsafeRawPointer? {
    release()
    mappedBytes = count * ByteStreams.blockBytes
    guard mappedBytes > 0, descriptor >= 0 else { return nil }
    let address = mmap(nil, mappedBytes, PROT_READ, MAP_PRIVATE, descriptor, 0)
    if let address, address != MAP_FAILED {
      mapping = address
      mappingIsCopy = false
      return UnsafeRawPointer(address)
    }
    // Not mappable (a file system without mmap): read it back into memory instead.
    let copy = UnsafeMutableRawPointer.allocate(byteCount: mappedBytes, alignment: 16)
    let total = mappedBytes
    guard Self.transferAll(total, { done in pread(descriptor, copy + done, total - done, off_t(done)) }) else {
      copy.deallocate()
      return nil
    }
    mapping = copy
    mappingIsCopy = true
    return UnsafeRawPointer(copy)
  }
}
