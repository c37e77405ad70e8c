#include <gtest/gtest.h>

#include "support/Diagnostics.h"

using namespace tilesched;

TEST(Diagnostics, RendersLocationSourceLineAndCaret) {
  auto file = std::make_shared<SourceFile>("k.py", "a = 1\n  b = c\n");
  DiagnosticEngine diags(file);
  diags.error({2, 7}, "name 'c' is not defined");
  EXPECT_EQ(diags.renderAll(),
            "k.py:2:7: error: name 'c' is not defined\n"
            "  b = c\n"
            "      ^\n");
  EXPECT_TRUE(diags.hasErrors());
}

TEST(Diagnostics, WarningOnceIsDeduplicatedByKey) {
  DiagnosticEngine diags;
  diags.warningOnce("k", {1, 1}, "first");
  diags.warningOnce("k", {2, 1}, "second");
  ASSERT_EQ(diags.all().size(), 1u);
  EXPECT_EQ(diags.all()[0].message, "first");
  EXPECT_FALSE(diags.hasErrors());
}

TEST(Diagnostics, NonPrintableBytesAreMasked) {
  auto file = std::make_shared<SourceFile>("g.py", std::string("x\x01\x02y\n", 5));
  DiagnosticEngine diags(file);
  diags.error({1, 2}, "bad character");
  EXPECT_NE(diags.renderAll().find("x??y"), std::string::npos);
}

TEST(SourceFile, LinesWithoutTrailingNewline) {
  SourceFile f("f.py", "one\ntwo");
  EXPECT_EQ(f.numLines(), 2u);
  EXPECT_EQ(f.line(2), "two");
  EXPECT_EQ(f.line(3), "");
}
