import Testing
@testable import GalleryImaging

@Suite struct ImageErrorTests {
    @Test func everyCaseSaysWhatWentWrong() {
        let cases: [ImageError] = [.unrecognizedFormat, .truncated("x"), .malformed("y"), .unsupported("z"), .tooLarge("w")]
        for error in cases { #expect(error.errorDescription?.isEmpty == false) }
    }
}
