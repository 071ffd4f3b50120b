import SimKernel
import Testing

@testable import SimModel

/// Devices next to one another with the same spec share one `DeviceTraits`: a million-install
/// world kept 200 bytes of them per device.
@Suite struct DeviceTraitsTests {
  @Test func aDeviceKeepsAnIndexNotItsTraits() {
    print("DeviceState stride", MemoryLayout<DeviceState>.stride, "traits", MemoryLayout<DeviceTraits>.stride)
    #expect(MemoryLayout<DeviceState>.stride <= 384, "\(MemoryLayout<DeviceState>.stride)")
  }
}
