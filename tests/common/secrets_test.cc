// RedactSecrets on the lines OpenSM really prints and logs.
#include "common/secrets.h"

#include <gtest/gtest.h>

namespace smsupd {
namespace {

TEST(RedactSecretsTest, OpenSmsOptionDumpAndErr2F18LoseTheirKeys) {
  EXPECT_EQ(RedactSecrets(" Loading Cached Option:sm_key = 0x00000000deadbeef"),
            " Loading Cached Option:sm_key = <redacted>");
  EXPECT_EQ(RedactSecrets(" Loading Cached Option:m_key = 0x1122334455667788"),
            " Loading Cached Option:m_key = <redacted>");
  EXPECT_EQ(RedactSecrets("sa_key 0x0000000000000001"), "sa_key <redacted>");
  EXPECT_EQ(RedactSecrets("Dec 02 21:12:24 781462 [A8CE26C0] 0x01 -> smi_rcv_process_get_response: "
                          "ERR 2F18: Got SM (0x0002c90300001021) with sm_key 0x00000000cafef00d "
                          "that doesn't match our local sm_key. Ignoring SMInfo"),
            "Dec 02 21:12:24 781462 [A8CE26C0] 0x01 -> smi_rcv_process_get_response: "
            "ERR 2F18: Got SM (0x0002c90300001021) with sm_key <redacted> "
            "that doesn't match our local sm_key. Ignoring SMInfo");
}

TEST(RedactSecretsTest, AnyCaseAndSeparatorButOnlyWholeNames) {
  EXPECT_EQ(RedactSecrets("SM_Key: 123456789"), "SM_Key: <redacted>");
  EXPECT_EQ(RedactSecrets("m_key=\"0xab\""), "m_key=\"<redacted>\"");
  EXPECT_EQ(RedactSecrets("sm_key_file /etc/smsupd/sm_key"), "sm_key_file /etc/smsupd/sm_key");
  EXPECT_EQ(RedactSecrets("m_key_lease_period 60"), "m_key_lease_period 60");
  EXPECT_EQ(RedactSecrets("sm_key changed"), "sm_key changed");
  EXPECT_EQ(RedactSecrets("no secret here 0x1234"), "no secret here 0x1234");
}

TEST(RedactSecretsTest, KnowsTheSecretOptions) {
  EXPECT_TRUE(IsSecretOption("m_key"));
  EXPECT_TRUE(IsSecretOption("SA_KEY"));
  EXPECT_FALSE(IsSecretOption("m_key_lease_period"));
}

}  // namespace
}  // namespace smsupd
