# shellcheck shell=bash
# Runner token from an SSM SecureString parameter, decrypted with the instance profile's credentials (IMDSv2).
# shellcheck disable=SC2034 # RUNNER_TOKEN is read by runner-config.sh, which calls fetch_runner_token.
# shellcheck disable=SC2154 # SSM_PARAMETER_NAME and AWS_REGION_NAME come from manager.env.

store_prepare() {
  ensure_aws_cli
}

fetch_runner_token() {
  RUNNER_TOKEN=$(aws ssm get-parameter --region "$AWS_REGION_NAME" --name "$SSM_PARAMETER_NAME" \
    --with-decryption --query Parameter.Value --output text) || return 1
  check_runner_token
}
