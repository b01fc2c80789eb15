import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Waits for what a node writes under a folder (a thumbnail replicated, a blob stored), woken by
/// the kernel's file events (Linux inotify: a file created, closed after writing or renamed into
/// place, in the folder or any subfolder, those made meanwhile included) rather than by a sleep.
/// The condition is checked at once, after every batch of events, and once a second at least (a
/// safety net: a folder made and filled between two scans is still seen).
package enum FolderEvents {
    /// IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE (sys/inotify.h).
    private static let mask: UInt32 = 0x0000_0008 | 0x0000_0080 | 0x0000_0100
    /// Subfolders watched below the root, at most this deep.
    private static let depth = 4

    /// Returns true as soon as `condition` holds, false when it still does not after `timeout`.
    package static func wait(under root: URL, timeout: TimeInterval, until condition: () throws -> Bool) rethrows -> Bool {
        #if canImport(Glibc)
        // IN_NONBLOCK | IN_CLOEXEC.
        let events = inotify_init1(Int32(0o4000 | 0o2000000))
        #else
        let events: Int32 = -1
        #endif
        defer { if events >= 0 { _ = close(events) } }
        var watched: Set<String> = []
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            if events >= 0 { watch(root.path, level: 0, with: events, watched: &watched) }
            if try condition() { return true }
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return false }
            let milliseconds = Int32(min(left, 1) * 1_000) + 1
            if events >= 0 {
                var descriptor = pollfd(fd: events, events: Int16(POLLIN), revents: 0)
                _ = poll(&descriptor, 1, milliseconds)
                // The events only wake the check: drain them.
                while read(events, &buffer, buffer.count) > 0 {}
            } else {
                usleep(UInt32(milliseconds) * 1_000)
            }
        }
    }

    /// Adds a watch on `path` and its subfolders not watched yet.
    private static func watch(_ path: String, level: Int, with events: Int32, watched: inout Set<String>) {
        #if canImport(Glibc)
        if !watched.contains(path) {
            guard inotify_add_watch(events, path, mask) >= 0 else { return }
            watched.insert(path)
        }
        guard level < depth, let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
        for name in names {
            let child = path + "/" + name
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: child, isDirectory: &isFolder), isFolder.boolValue {
                watch(child, level: level + 1, with: events, watched: &watched)
            }
        }
        #endif
    }
}
