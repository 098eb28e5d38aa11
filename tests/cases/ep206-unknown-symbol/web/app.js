// The accounts page.
export const API_URL = "/api/accounts";

export async function fetchUsers() {
  const response = await fetch(API_URL);
  return response.json();
}
