import Foundation
@testable import GalleryIO
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import Testing

/// The control socket's path (review finding L2): the mode is never set by path, so a symlink
/// planted at the path right after the bind changes nothing it points to; the socket's user is
/// read from the kernel on both ends.
@Suite("Unix socket")
struct UnixSocketTests {
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-unix-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private func mode(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o777 : 0
    }

    @Test("A socket is mode 0600 from its bind, whatever the umask leaves, and its listener's user is read back")
    func modeAndPeerUser() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("control.sock").path
        var modeAtBind: mode_t = 0
        let listening = try UnixSocket.listen(at: path, whenBound: { modeAtBind = mode(path) })
        defer { POSIX.closeDescriptor(listening) }
        // Right after the bind, before anything could chmod it: already 0600.
        #expect(modeAtBind == 0o600, "mode \(String(modeAtBind, radix: 8)) at bind")
        #expect(mode(path) == 0o600)
        let client = try UnixSocket.connect(to: path, deadline: .now + .seconds(5))
        defer { POSIX.closeDescriptor(client) }
        #expect(UnixSocket.peerUserID(client) == geteuid(), "the client reads the listener's user")
    }

    @Test("A symlink swapped in right after the bind is refused, and the file it points to keeps its mode")
    func symlinkAfterBind() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("control.sock").path
        let victim = directory.appendingPathComponent("victim.txt").path
        try Data("mine".utf8).write(to: URL(fileURLWithPath: victim))
        #expect(chmod(victim, 0o644) == 0)
        #expect(throws: TransportError.self) {
            // What an attacker who can write the directory does in the window: the socket file
            // replaced by a symlink to a file of the node's user.
            _ = try UnixSocket.listen(at: path, whenBound: {
                unlink(path)
                symlink(victim, path)
            })
        }
        #expect(mode(victim) == 0o644, "the victim's mode is untouched")
        var info = stat()
        #expect(lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK, "the symlink is left alone")
        #expect(try Data(contentsOf: URL(fileURLWithPath: victim)) == Data("mine".utf8))
    }
}
